/// Finds what changed between two committed states: the change reduction.
public enum StateReducer {
    /// The changed keys between two flattened states, parents included, the state's `_`-prefixed
    /// properties (its top-level `_` keys) skipped: the reduction of the low-level API, for states
    /// you flattened yourself. Nested keys are data, `_` or not (see docs/decisions.md).
    ///
    /// - Parameters:
    ///   - old: the previous state, flattened to dotted keys and values.
    ///   - new: the next state, flattened the same way.
    /// - Returns: the keys whose values differ; a key present on one side only changes to or from nil.
    public static func reduce(_ old: [String: any Sendable], _ new: [String: any Sendable]) -> Set<String> {
        var changes: [(key: String, old: FlatValue?, new: FlatValue?)] = []
        let oldTree = FlatValue.keyed(old.filter { !$0.key.hasPrefix("_") }.compactMapValues(FlaskDictRef.flatten))
        let newTree = FlatValue.keyed(new.filter { !$0.key.hasPrefix("_") }.compactMapValues(FlaskDictRef.flatten))
        _ = FlatValue.diff(oldTree, newTree, prefix: "", into: &changes)
        return Set(changes.map(\.key))
    }

    /// The changes between two states of a substance, or nil when nothing observable changed.
    /// The states are compared where they lie; the changes object is made only when something
    /// changed. A recycled object (`spare`) may take the old state by swapping it with its own old
    /// one (`old` then holds a stale state); `new` is left as it is.
    static func reduce<S: State>(
        _ old: UnsafeMutablePointer<S>, _ new: UnsafeMutablePointer<S>, plan: ReductionPlan,
        reference: SubstanceReference, recycling spare: inout SubstanceChanges?
    ) -> StateChanges<S>? {
        var entries = PlanEntrySet()
        var flat: [(key: String, old: FlatValue?, new: FlatValue?)] = []
        if plan.usesCodablePath {
            _ = FlatValue.diff(
                FlatEncoder.flatten(old.pointee), FlatEncoder.flatten(new.pointee), prefix: "", into: &flat)
        } else {
            compare(UnsafeRawPointer(old), UnsafeRawPointer(new), plan: plan, entries: &entries, flat: &flat)
        }
        if entries.isEmpty && flat.isEmpty { return nil }
        // The candidate kept at the last delivery (see `Substance.recycle`), refilled if it has not
        // left the bus and nobody else holds it.
        if var recycled = spare.take(), !recycled.hasEscaped, isKnownUniquelyReferenced(&recycled) {
            // Recycled changes of this substance, so of class `StateChanges<S>`.
            let changes = unsafeDowncast(recycled, to: StateChanges<S>.self)
            changes.refill(old: old, new: new, entries: consume entries, flat: consume flat)
            return changes
        }
        // The plan is the plan of `S`, so its class is `StateChanges<S>`.
        let changesType = unsafeBitCast(plan.changesClass, to: StateChanges<S>.Type.self)
        return changesType.init(
            reference: reference, old: old.pointee, new: new.pointee, plan: plan, entries: consume entries,
            flat: consume flat)
    }

    /// The changes between two state values (tests and tools).
    static func reduce<S: State>(
        _ old: S, _ new: S, plan: ReductionPlan, reference: SubstanceReference
    ) -> StateChanges<S>? {
        var old = old
        var new = new
        var none: SubstanceChanges?
        return reduce(&old, &new, plan: plan, reference: reference, recycling: &none)
    }

    /// Finds the changed properties of the layout path.
    private static func compare(
        _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, plan: ReductionPlan, entries: inout PlanEntrySet,
        flat: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        plan.leaves.withUnsafeBufferPointer { leaves in
            for run in plan.runs {
                if run.leaves.count == 1 {
                    // One property (a state of one field, a property between two paddings):
                    // compared directly, without the scan's setup.
                    compareLeaves(
                        old, new, leaves: UnsafeBufferPointer(rebasing: leaves[run.leaves]), plan: plan,
                        entries: &entries, flat: &flat)
                    continue
                }
                // Scan the run for differing bytes; at each, compare the property they belong to
                // (the difference may lie in a later byte of the word, so that property may turn
                // out unchanged), then scan on from its end.
                var position = run.offset
                var leaf = run.leaves.lowerBound
                let end = run.offset + run.length
                while let difference = firstDifference(old, new, from: position, to: end) {
                    while leaves[leaf].offset + leaves[leaf].size <= difference { leaf += 1 }
                    compareLeaves(
                        old, new, leaves: UnsafeBufferPointer(rebasing: leaves[leaf..<leaf + 1]), plan: plan,
                        entries: &entries, flat: &flat)
                    position = leaves[leaf].offset + leaves[leaf].size
                    leaf += 1
                }
            }
        }
    }

    /// Finds the changed properties among `leaves`, whose group's bytes differ.
    private static func compareLeaves(
        _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, leaves: UnsafeBufferPointer<ReductionPlan.Leaf>,
        plan: ReductionPlan, entries: inout PlanEntrySet, flat: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        for leaf in leaves {
            let offset = leaf.offset
            if sameBits(old + offset, new + offset, leaf.size) { continue }
            switch leaf.kind {
            case .bits:
                break
            case .equatable:
                guard case .equatable(let equal) = plan.entries[Int(leaf.entry)].traits.comparison else { break }
                if equal(old + offset, new + offset) { continue }
            case .expand:
                break
            }
            // Compared through the flattening (a dictionary, a value not `Equatable`), or reported
            // key by key below it (an optional struct): its keys found by flattening both values.
            if leaf.kind == .expand || leaf.reportsKeysBelow, !appendFlattenedChanges(leaf, old, new, plan, &flat) {
                continue
            }
            entries.append(leaf.entry)
            var parent = leaf.parent
            while parent >= 0, !entries.contains(parent) {
                entries.append(parent)
                parent = Int32(plan.entries[Int(parent)].parent)
            }
        }
    }

    /// Appends the changed keys below `leaf` (`info.dict.a`, `user.name`), found by flattening its
    /// two values once their bits (or `==`) differ; whether the leaf changed: not when the values
    /// flatten alike, as when only an optional struct's `_` properties did (the flattening leaves
    /// them out, as the layout path does in a struct that is not optional). Out of line, since only
    /// such a property's change pays for it.
    @inline(never)
    private static func appendFlattenedChanges(
        _ leaf: ReductionPlan.Leaf, _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, _ plan: ReductionPlan,
        _ flat: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) -> Bool {
        let entry = plan.entries[Int(leaf.entry)]
        var expanded: [(key: String, old: FlatValue?, new: FlatValue?)] = []
        let oldValue = entry.traits.flatten(old + leaf.offset)
        let newValue = entry.traits.flatten(new + leaf.offset)
        // nil rather than `.null`: a key below a missing value was not there.
        let changed = FlatValue.diff(
            oldValue == .null ? nil : oldValue, newValue == .null ? nil : newValue, prefix: entry.key, into: &expanded)
        guard changed else { return false }
        expanded.removeLast()  // the property itself, reported with its typed values
        flat.append(contentsOf: expanded)
        return true
    }
}
