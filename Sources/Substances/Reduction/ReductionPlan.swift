import FlaskLocking

/// How to find the changes between two values of one state type, worked out once per type.
///
/// The **layout path** locates every stored property's offset once, then compares old and new state
/// property by property: identical bits mean no change, and only where bits differ does it ask
/// `==` (or the Codable flattening, for dictionaries and values that are not `Equatable`). Old and
/// new values are read only when a reaction asks for them. Nested structs are descended into, so
/// `info.nest.foo` is a key of its own and `info` changes when anything below it changes.
///
/// The **Codable path** flattens both states through their `encode(to:)` and compares the trees. It
/// serves what the layout path cannot: a type the runtime cannot describe, or whose coding keys
/// differ from its property names (custom `CodingKeys`). A nested struct with custom coding keys
/// falls back alone, as one expandable property.
///
/// Immutable after `init`; its closures capture only types.
@usableFromInline
final class ReductionPlan: Sendable {
    struct Entry {
        let key: String
        let offset: Int
        /// The property's type.
        let type: any Any.Type
        let traits: ValueTraits
        /// Index of the enclosing struct's entry, or -1.
        let parent: Int
        /// Whether the property is a `[String: V]` dictionary of encodable values: an archive patch
        /// holds its entries one by one.
        var isDictionary = false
    }

    /// The comparison loop's view of a compared property: plain data, so reading it touches no
    /// reference count.
    struct Leaf {
        enum Kind: UInt8 {
            case bits, equatable, expand
        }

        let offset: Int
        let size: Int
        let kind: Kind
        /// Whether its changes are also reported key by key below it, found by flattening the two
        /// values once they differ: an optional struct (`user.name` with `var user: User?`).
        var reportsKeysBelow = false
        /// Index of the enclosing struct's entry, or -1.
        let parent: Int32
        /// Index of this property's entry.
        let entry: Int32
    }

    /// Consecutive leaves whose bytes follow each other, with no padding between them: `length`
    /// bytes from `offset`.
    struct LeafRun {
        let offset: Int
        let length: Int
        let leaves: Range<Int>

        static func runs(_ leaves: [Leaf]) -> [LeafRun] {
            var runs: [LeafRun] = []
            var start = 0
            while start < leaves.count {
                var end = start + 1
                while end < leaves.count, leaves[end].offset == leaves[end - 1].offset + leaves[end - 1].size {
                    end += 1
                }
                let length = leaves[end - 1].offset + leaves[end - 1].size - leaves[start].offset
                runs.append(LeafRun(offset: leaves[start].offset, length: length, leaves: start..<end))
                start = end
            }
            return runs
        }
    }

    let stateType: any Any.Type
    /// `StateChanges<S>.self`, looked up once: allocating through it spares every commit a run-time
    /// lookup of the generic class's metadata.
    let changesClass: AnyClass
    let entries: [Entry]
    /// The compared properties (every entry but nested structs), in declaration order.
    let leaves: [Leaf]
    /// The leaves in runs whose bytes are contiguous: a commit scans a run's bytes for the first
    /// difference, several words a step, and looks at properties only where bytes differ, so a wide
    /// state costs a comparison of its words rather than a loop turn per property.
    let runs: [LeafRun]
    let keyIndex: [String: Int]
    /// The entries by the bits of their keys, for reactions.
    let keyTable: KeyTable
    /// Keys under which any dotted sub-key is valid (dictionaries, expandable values).
    let openPrefixes: [String]
    /// The keys below optional structs (`user.name` with `var user: User?`), found from the
    /// wrapped types' stored properties: what a reaction may name below an optional.
    let keysBelowOptionals: Set<String>
    /// The optional structs' keys, each with a dot: a key below one counts as it for interest.
    let optionalPrefixes: [String]
    /// The `_`-prefixed stored properties (internal state, which the reduction does not compare)
    /// of the state (under -1) and of each nested struct the plan descends into (under its entry):
    /// an archive patch sets each of them whole, since no change says whether they changed.
    let internalFields: [Int: [InternalField]]

    /// A `_`-prefixed stored property (see ``internalFields``): its name, byte offset in the state
    /// and type.
    struct InternalField {
        let name: String
        let offset: Int
        let type: any Any.Type
    }
    /// True when the whole state goes through the Codable path.
    let usesCodablePath: Bool
    /// The state's secret keys, as the tools apply them (read at every recorded commit).
    let secrets: SecretKeys
    /// On the Codable path, the top-level keys a key may start with: the coding keys the default
    /// state encodes. Nil when they may not be all: a property nil in the default state is not
    /// encoded there, and its coding key cannot be seen without running the type's own
    /// `init(from:)` (which may trap on values it does not expect), so no key is reported as
    /// unknown. Nil on the fast path too, which has entries.
    let codableTopKeys: Set<String>?

    init<S: State>(for type: S.Type, forceCodablePath: Bool = false) {
        stateType = type
        changesClass = StateChanges<S>.self
        secrets = SecretKeys(S.secretKeys, of: S.self)
        let tree = FlatEncoder.flatten(S())
        var builder = Builder()
        if !forceCodablePath, let fields = FieldLayout.storedFields(of: S.self),
            ReductionPlan.shape(fields, matches: tree)
        {
            usesCodablePath = false
            builder.add(fields, base: 0, prefix: "", parent: -1, tree: tree)
        } else {
            usesCodablePath = true
        }
        codableTopKeys = usesCodablePath ? ReductionPlan.topKeys(of: S(), tree: tree) : nil
        entries = builder.entries
        leaves = builder.leaves
        runs = LeafRun.runs(builder.leaves)
        keyIndex = builder.keyIndex
        keyTable = KeyTable(keys: builder.entries.map(\.key))
        openPrefixes = builder.openPrefixes
        keysBelowOptionals = builder.keysBelowOptionals
        optionalPrefixes = builder.optionalPrefixes
        internalFields = builder.internalFields
    }

    private struct Builder {
        var entries: [Entry] = []
        var leaves: [Leaf] = []
        var keyIndex: [String: Int] = [:]
        var openPrefixes: [String] = []
        var keysBelowOptionals: Set<String> = []
        var optionalPrefixes: [String] = []
        var internalFields: [Int: [InternalField]] = [:]

        mutating func add(_ fields: [StoredField], base: Int, prefix: String, parent: Int, tree: FlatValue) {
            for field in fields where field.isInternal {
                internalFields[parent, default: []].append(
                    InternalField(name: field.name, offset: base + field.offset, type: field.type))
            }
            for field in fields where field.isProperty {
                let key = prefix + field.name
                let index = entries.count
                let offset = base + field.offset
                let subtree = tree.child(at: [field.name])
                let traits = ValueTraits.of(field.type)
                keyIndex[key] = index
                entries.append(
                    Entry(
                        key: key, offset: offset, type: field.type, traits: traits, parent: parent,
                        isDictionary: field.type is any ArchivableEntries.Type))
                // Descended into: a struct with properties of its own whose coding keys are their
                // names. One whose stored properties are all internals (`_`-prefixed: an `[Int: V]`
                // dictionary, whose empty value encodes as `{}`) would have no entries, and its
                // changes would go unseen: it is a property compared whole.
                if field.isStruct, let subtree, case .keyed = subtree, !(field.type is any KeyedByContent.Type),
                    let nested = FieldLayout.storedFields(of: field.type), nested.contains(where: \.isProperty),
                    ReductionPlan.shape(nested, matches: subtree)
                {
                    add(nested, base: offset, prefix: key + ".", parent: index, tree: subtree)
                } else {
                    let kind: Leaf.Kind
                    switch traits.comparison {
                    case .bits: kind = .bits
                    case .equatable: kind = .equatable
                    case .expand:
                        kind = .expand
                        openPrefixes.append(key + ".")
                    }
                    var leaf = Leaf(
                        offset: offset, size: traits.size, kind: kind, parent: Int32(parent), entry: Int32(index))
                    if kind != .expand, let below = ReductionPlan.keysBelowOptional(field.type, prefix: key + ".") {
                        leaf.reportsKeysBelow = true
                        keysBelowOptionals.formUnion(below.keys)
                        openPrefixes.append(contentsOf: below.openPrefixes)
                        optionalPrefixes.append(key + ".")
                    }
                    leaves.append(leaf)
                }
            }
        }
    }

    /// The keys below an optional struct property of type `type` (nil for anything else): its
    /// wrapped type's stored properties, recursively through structs and optional structs, and the
    /// dictionary-like ones among them as open prefixes. A struct the runtime cannot describe, or
    /// a value type without properties of its own (a number, a string, a date: their stored
    /// properties are `_`-prefixed internals), has none.
    fileprivate static func keysBelowOptional(
        _ type: any Any.Type, prefix: String
    ) -> (keys: Set<String>, openPrefixes: [String])? {
        guard let optional = type as? any OptionalProtocol.Type, !(type is any KeyedByContent.Type) else { return nil }
        let wrapped = optional.wrappedType
        if wrapped is any ObjectReferencing.Type || wrapped is any OptionalProtocol.Type { return nil }
        var keys: Set<String> = []
        var open: [String] = []
        guard collectKeys(of: wrapped, prefix: prefix, depth: 0, into: &keys, open: &open), !keys.isEmpty else {
            return nil
        }
        return (keys, open)
    }

    /// Adds the keys of the stored properties of `type` below `prefix`; false when `type` is not a
    /// struct with public-looking properties.
    private static func collectKeys(
        of type: any Any.Type, prefix: String, depth: Int, into keys: inout Set<String>, open: inout [String]
    ) -> Bool {
        guard depth < 16, let properties = FieldLayout.storedFields(of: type)?.filter(\.isProperty),
            !properties.isEmpty
        else { return false }
        for field in properties {
            let key = prefix + field.name
            keys.insert(key)
            if field.type is any KeyedByContent.Type {
                open.append(key + ".")
                continue
            }
            let nested = unwrappingOptionalType(field.type)
            if nested is any ObjectReferencing.Type { continue }
            _ = collectKeys(of: nested, prefix: key + ".", depth: depth + 1, into: &keys, open: &open)
        }
        return true
    }

    /// Whether a struct's coding keys are its property names (so offsets and keys agree).
    fileprivate static func shape(_ fields: [StoredField], matches tree: FlatValue) -> Bool {
        guard case .keyed(let encoded) = tree else { return false }
        var names: [String: StoredField] = [:]
        for field in fields { names[field.name] = field }
        for key in encoded.keys where names[key] == nil { return false }
        for field in fields where encoded[field.name] == nil && !field.name.hasPrefix("_") {
            // Synthesized encoding skips nil optionals (the flattening leaves out `_` properties);
            // anything else missing means custom keys.
            if !(field.type is any OptionalProtocol.Type) && !field.name.contains("$") { return false }
        }
        return true
    }

    /// The entries whose change concerns an observer that declared `keys`; nil when changes of
    /// this state are not told apart by entry (the Codable path). A key below a dictionary-like
    /// property is represented by that property; a key the state does not have adds nothing.
    func interest(in keys: [String]) -> PlanEntrySet? {
        if usesCodablePath { return nil }
        var interest = PlanEntrySet()
        for key in keys {
            if let index = entry(holding: key) { interest.append(Int32(index)) }
        }
        return interest
    }

    /// Whether `key` names something in this state (a property, a nested property, or a sub-key
    /// of a dictionary-like property).
    func isValid(key: String) -> Bool {
        guard usesCodablePath else { return entry(holding: key) != nil }
        guard let first = DottedKey.components(of: key).first else { return false }
        return codableTopKeys?.contains(first) ?? true
    }

    /// The top-level keys of a state on the Codable path (see ``codableTopKeys``): nil when a
    /// property is nil in the default state, and its key not seen. A property whose coding key is
    /// another string is not among them: a reaction on its name is reported, since it could never
    /// fire.
    private static func topKeys<S: State>(of state: S, tree: FlatValue) -> Set<String>? {
        let hidesAKey = Mirror(reflecting: state).children.contains { child in
            guard let optional = child.value as? any OptionalProtocol else { return false }
            return optional.wrapped == nil
        }
        if hidesAKey { return nil }
        if case .keyed(let children) = tree { return Set(children.keys) }
        return []
    }

    /// The entry of `key`, or of the dictionary-like property a sub-key is below; nil for a key the
    /// state does not have (and on the Codable path, which has no entries).
    func entry(holding key: String) -> Int? {
        if let index = keyIndex[key] { return index }
        if let prefix = optionalPrefixes.first(where: { key.hasPrefix($0) }) {
            // Below an optional struct: a key its wrapped type has, or one below a dictionary there.
            guard keysBelowOptionals.contains(key) || openPrefixes.contains(where: { key.hasPrefix($0) }) else {
                return nil
            }
            return keyIndex[String(prefix.dropLast())]
        }
        guard let prefix = openPrefixes.first(where: { key.hasPrefix($0) }) else { return nil }
        return keyIndex[String(prefix.dropLast())]
    }
}
