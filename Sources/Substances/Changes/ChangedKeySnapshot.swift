/// The keys one commit changed, kept as the plan's entry numbers (and the flattened keys, which
/// have no entry) and spelled only when read: a mix journal records every commit's keys, and
/// spelling them as strings on the bus was most of its cost.
public struct ChangedKeySnapshot: Sendable {
    /// The state type's reduction plan, which names the entries. Immutable once built.
    let plan: ReductionPlan?
    let entries: PlanEntrySet
    /// Keys found by flattening, in order after the entries (usually none).
    let flattened: [String]

    /// The keys, parents included, in the order ``SubstanceChanges/keys`` gives them.
    public var keys: [String] {
        var keys: [String] = []
        keys.reserveCapacity(entries.count + flattened.count)
        if let plan {
            for entry in entries { keys.append(plan.entries[Int(entry)].key) }
        }
        keys.append(contentsOf: flattened)
        return keys
    }
}

extension SubstanceChanges {
    /// The changed keys, as a snapshot that does not keep the changes (nor their states) alive.
    public var keySnapshot: ChangedKeySnapshot {
        ChangedKeySnapshot(plan: plan, entries: entries, flattened: flattenedKeys)
    }
}
