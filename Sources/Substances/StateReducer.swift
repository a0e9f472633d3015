/// Finds what changed between two committed states: the change reduction.
public enum StateReducer {
    /// The changed keys between two flattened states, parents included, `_` keys skipped: the
    /// reduction of the low-level API, for states you flattened yourself.
    ///
    /// - Parameters:
    ///   - old: the previous state, flattened to dotted keys and values.
    ///   - new: the next state, flattened the same way.
    /// - Returns: the keys whose values differ; a key present on one side only changes to or from nil.
    public static func reduce(_ old: [String: any Sendable], _ new: [String: any Sendable]) -> Set<String> {
        var changes: [(key: String, old: FlatValue?, new: FlatValue?)] = []
        let oldTree = FlatValue.keyed(old.compactMapValues(FlaskDictRef.flatten))
        let newTree = FlatValue.keyed(new.compactMapValues(FlaskDictRef.flatten))
        _ = FlatValue.diff(oldTree, newTree, prefix: "", into: &changes)
        return Set(changes.map(\.key))
    }

    /// The changes between two states of a substance, or nil when nothing observable changed.
    static func reduce<S: State>(
        _ old: S, _ new: S, plan: ReductionPlan, reference: SubstanceReference
    ) -> StateChanges<S>? {
        // The plan is the plan of `S`, so its class is `StateChanges<S>`.
        let changesType = unsafeBitCast(plan.changesClass, to: StateChanges<S>.Type.self)
        let changes = changesType.init(reference: reference, old: old, new: new, plan: plan)
        if plan.usesCodablePath {
            _ = FlatValue.diff(
                FlatEncoder.flatten(changes.old), FlatEncoder.flatten(changes.new), prefix: "", into: &changes.flat)
        } else {
            withUnsafeBytes(of: changes.old) { oldBytes in
                withUnsafeBytes(of: changes.new) { newBytes in
                    compare(oldBytes.baseAddress!, newBytes.baseAddress!, plan: plan, into: changes)
                }
            }
        }
        return changes.entries.isEmpty && changes.flat.isEmpty ? nil : changes
    }

    /// Finds the changed properties of the layout path.
    private static func compare<S>(
        _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, plan: ReductionPlan, into changes: StateChanges<S>
    ) {
        plan.leaves.withUnsafeBufferPointer { leaves in
            for group in plan.groups where !sameBits(old + group.offset, new + group.offset, group.length) {
                compareLeaves(
                    old, new, leaves: UnsafeBufferPointer(rebasing: leaves[group.leaves]), plan: plan, into: changes)
            }
        }
    }

    /// Finds the changed properties among `leaves`, whose group's bytes differ.
    private static func compareLeaves<S>(
        _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, leaves: UnsafeBufferPointer<ReductionPlan.Leaf>,
        plan: ReductionPlan, into changes: StateChanges<S>
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
                let entry = plan.entries[Int(leaf.entry)]
                var expanded: [(key: String, old: FlatValue?, new: FlatValue?)] = []
                let changed = FlatValue.diff(
                    entry.traits.flatten(old + offset), entry.traits.flatten(new + offset),
                    prefix: entry.key, into: &expanded)
                if !changed { continue }
                expanded.removeLast()  // the property itself, reported with its typed values below
                changes.flat.append(contentsOf: expanded)
            }
            changes.entries.append(leaf.entry)
            var parent = leaf.parent
            while parent >= 0, !changes.entries.contains(parent) {
                changes.entries.append(parent)
                parent = Int32(plan.entries[Int(parent)].parent)
            }
        }
    }
}
