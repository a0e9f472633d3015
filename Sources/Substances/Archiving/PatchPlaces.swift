/// The places of a state a commit changed, as an archive patch sets them: a tree of property names
/// (and of a `[String: V]` dictionary's entry keys) whose marked nodes are written whole.
///
/// Worked out on the bus from the commit's changes (`SubstanceChanges`), by keys alone: no value
/// is read. A struct property whose properties changed is left to them, as is a dictionary whose
/// entries did; anything else that changed (a property whose changes were found by flattening it,
/// such as an optional struct or a `FlaskDictRef`) is a place of its own, written whole.
struct PatchPlaces {
    /// Whether this place is written whole (nothing below it then).
    var whole = false
    /// The places below, by property name or entry key.
    var children: [String: PatchPlaces] = [:]

    /// No places: a check of the encoding alone.
    init() {}

    /// The places `changes` changed, nil when the state's changes are not told apart by property
    /// (the Codable path).
    init?(_ changes: SubstanceChanges, plan: ReductionPlan) {
        guard !plan.usesCodablePath else { return nil }
        let entryCount = changes.entries.count
        for slot in 0..<entryCount {
            let index = Int(changes.entries[slot])
            // A struct with properties of its own, or a dictionary with entries, says what changed
            // below it: its changed properties are entries, its changed entries keys found by
            // flattening. Neither is ever nil (the plan descends into neither through an optional).
            if plan.hasNestedEntries(index) || plan.entries[index].isDictionary { continue }
            insert(plan.entries[index].key.split(separator: ".").map(String.init)[...])
        }
        for slot in entryCount..<changes.count {
            let key = changes.key(at: slot)
            let components = DottedKey.components(of: key)
            // The plan entry it is found below: the longest prefix that is one.
            var depth = components.count - 1
            var entry: Int?
            while depth > 0 {
                if let index = plan.keyIndex[components[..<depth].joined(separator: ".")] {
                    entry = index
                    break
                }
                depth -= 1
            }
            guard let entry else { return nil }
            // A dictionary's entry, whole; any other property with keys found below it, whole.
            insert(components[..<(plan.entries[entry].isDictionary ? depth + 1 : depth)])
        }
    }

    /// Marks `path` to be written whole (unless a place above it is).
    private mutating func insert(_ path: ArraySlice<String>) {
        guard !whole else { return }
        guard let first = path.first else {
            whole = true
            children = [:]
            return
        }
        children[first, default: PatchPlaces()].insert(path.dropFirst())
    }
}

extension ReductionPlan {
    /// Whether the entry at `index` is a struct whose properties are entries of their own.
    func hasNestedEntries(_ index: Int) -> Bool {
        index + 1 < entries.count && entries[index + 1].parent == index
    }
}
