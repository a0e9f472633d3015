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
        _ old: S, _ new: S, plan: ReductionPlan, substance: any AnySubstance
    ) -> StateChanges<S>? {
        var entries: [Int32] = []
        var flat: [(key: String, old: FlatValue?, new: FlatValue?)] = []
        if plan.usesCodablePath {
            _ = FlatValue.diff(FlatEncoder.flatten(old), FlatEncoder.flatten(new), prefix: "", into: &flat)
        } else {
            var old = old
            var new = new
            withUnsafeBytes(of: &old) { oldBytes in
                withUnsafeBytes(of: &new) { newBytes in
                    compare(oldBytes.baseAddress!, newBytes.baseAddress!, plan: plan, entries: &entries, flat: &flat)
                }
            }
        }
        if entries.isEmpty && flat.isEmpty { return nil }
        return StateChanges(substance: substance, old: old, new: new, plan: plan, entries: entries, flat: flat)
    }

    private static func compare(
        _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, plan: ReductionPlan,
        entries: inout [Int32], flat: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        let offsets = plan.leafOffsets
        let sizes = plan.leafSizes
        for position in offsets.indices {
            let offset = offsets[position]
            if sameBits(old + offset, new + offset, sizes[position]) { continue }
            let index = plan.leaves[position]
            let entry = plan.entries[index]
            switch entry.traits.comparison {
            case .bits:
                break
            case .equatable(let equal):
                if equal(old + offset, new + offset) { continue }
            case .expand:
                var expanded: [(key: String, old: FlatValue?, new: FlatValue?)] = []
                let changed = FlatValue.diff(
                    entry.traits.flatten(old + offset), entry.traits.flatten(new + offset),
                    prefix: entry.key, into: &expanded)
                if !changed { continue }
                expanded.removeLast()  // the property itself, reported with its typed values below
                flat.append(contentsOf: expanded)
            }
            entries.append(Int32(index))
            var parent = plan.leafParents[position]
            while parent >= 0, !entries.contains(parent) {
                entries.append(parent)
                parent = Int32(plan.entries[Int(parent)].parent)
            }
        }
    }
}
