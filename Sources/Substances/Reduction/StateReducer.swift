import FlaskLocking

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
        _ old: StateSlot, _ new: StateSlot, of type: S.Type, plan: ReductionPlan,
        reference: SubstanceReference, recycling spare: inout SubstanceChanges?
    ) -> StateChanges<S>? {
        var entries = PlanEntrySet()
        var flat: [(key: String, old: FlatValue?, new: FlatValue?)] = []
        if plan.usesCodablePath {
            _ = FlatValue.diff(
                FlatEncoder.flatten(old.value(S.self)), FlatEncoder.flatten(new.value(S.self)), prefix: "", into: &flat)
        } else {
            compare(old.memory(S.self), new.memory(S.self), plan: plan, entries: &entries, flat: &flat)
        }
        if entries.isEmpty && flat.isEmpty { return nil }
        // The candidate kept at the last delivery (see `Substance.recycle`), refilled if it has not
        // left the bus. Nobody else holds it: the commit let go of a held one before reducing
        // (`Substance.settleSpareChanges()`, checked in debug builds).
        if var recycled = spare.take(), !recycled.hasEscaped {
            assert(isKnownUniquelyReferenced(&recycled), "spare changes held by someone reached the reducer")
            // Recycled changes of this substance, so of class `StateChanges<S>`. Consumed: a copy
            // left beside `changes` kept the object retained across the refill's calls into the
            // state's value witnesses (scenario S1).
            let changes = (consume recycled).ofState(S.self)
            changes.refill(old: old, new: new, entries: consume entries, flat: consume flat)
            return changes
        }
        // The plan is the plan of `S`, so its class is `StateChanges<S>`.
        let changesType = plan.changesClass(of: S.self)
        return changesType.init(
            reference: reference, old: old.value(S.self), new: new.value(S.self), plan: plan, entries: consume entries,
            flat: consume flat)
    }

    /// The changes between two state values (tests and tools).
    static func reduce<S: State>(
        _ old: S, _ new: S, plan: ReductionPlan, reference: SubstanceReference
    ) -> StateChanges<S>? {
        var old = old
        var new = new
        var none: SubstanceChanges?
        return StateSlot.withSlots(holding: &old, &new) { old, new in
            reduce(old, new, of: S.self, plan: plan, reference: reference, recycling: &none)
        }
    }

    /// Appends the changed keys below `leaf` (`info.dict.a`, `user.name`), found by flattening its
    /// two values once their bits (or `==`) differ; whether the leaf changed: not when the values
    /// flatten alike, as when only an optional struct's `_` properties did (the flattening leaves
    /// them out, as the layout path does in a struct that is not optional). Out of line, since only
    /// such a property's change pays for it.
    @inline(never)
    static func appendFlattenedChanges(
        _ leaf: ReductionPlan.Leaf, _ old: StateMemory, _ new: StateMemory, _ plan: ReductionPlan,
        _ flat: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) -> Bool {
        let entry = plan.entries[Int(leaf.entry)]
        if let entryChanges = entry.traits.entryChanges,
            let changed = entryChanges(old.advanced(by: leaf.offset), new.advanced(by: leaf.offset), entry.key, &flat)
        {
            return changed
        }
        var expanded: [(key: String, old: FlatValue?, new: FlatValue?)] = []
        let oldValue = entry.traits.flatten(old.advanced(by: leaf.offset))
        let newValue = entry.traits.flatten(new.advanced(by: leaf.offset))
        // nil rather than `.null`: a key below a missing value was not there.
        let changed = FlatValue.diff(
            oldValue == .null ? nil : oldValue, newValue == .null ? nil : newValue, prefix: entry.key, into: &expanded)
        guard changed else { return false }
        expanded.removeLast()  // the property itself, reported with its typed values
        flat.append(contentsOf: expanded)
        return true
    }
}
