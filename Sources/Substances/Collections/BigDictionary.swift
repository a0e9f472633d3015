/// A dictionary for big collections in state: a one-entry edit costs the entry, not the collection.
///
/// A state is a value: a commit keeps the old state beside the new one, so a write to a plain
/// `[String: Card]` of 50,000 entries copies all 50,000, and the commit compares them all to find
/// the one that changed. A `BigDictionary` shares everything but the path to the entry written: a
/// write copies a few small nodes, and the commit finds the changed entry by skipping the nodes
/// both states share. Reactions see what a plain dictionary gives them:
///
/// ```swift
/// struct Board: State {
///     var cards: BigDictionary<String, Card> = [:]
/// }
/// let board = Substance<Board>(name: "board")
/// // in a mixer: one entry changed, the rest shared
/// reactor.mix(board) { $0.prop.cards["c42"]?.title = "Ship it" }.react()
/// // in a reactor: the entry's key, with its old and new values, as for a plain dictionary
/// reaction.on("cards.c42") { change in print(change.newValue() ?? "removed") }
/// ```
///
/// It is `Codable` as a plain dictionary is (an archive written with `[String: Card]` restores
/// into a `BigDictionary<String, Card>`, and back), `Equatable` when its values are, and
/// `Sendable`, as a state's properties are. Entries come in an order of their own, as a plain
/// dictionary's do.
///
/// When to pick it: a plain dictionary is faster to read and to iterate, and as fast to change
/// while it is small (up to a few thousand entries); past that, each edit of a plain one costs its
/// size, and this one about the same whatever its size (docs/big-collections.md has the figures).
/// String keys are reported entry by entry (`cards.c42`); other keys as the whole property.
public struct BigDictionary<Key: Hashable & Sendable, Value: Sendable> {
    // `_`-prefixed: the reduction plan takes the type as one property, never as a struct to
    // descend into.
    private var _root: HashTrieNode
    private var _count: Int

    /// An empty dictionary.
    public init() {
        _root = .empty
        _count = 0
    }

    /// The entries of a plain dictionary.
    public init(_ dictionary: [Key: Value]) {
        _root = HashTrie.build(
            dictionary.map { HashTrieEntry(hash: HashTrie.hash($0.key), key: $0.key, value: $0.value) })
        _count = dictionary.count
    }

    /// The pairs of a sequence whose keys are all different (a repeated key is a precondition
    /// failure, as for `Dictionary(uniqueKeysWithValues:)`).
    public init<S: Sequence>(uniqueKeysWithValues pairs: S) where S.Element == (Key, Value) {
        self.init(Dictionary(uniqueKeysWithValues: pairs))
    }

    /// The number of entries.
    public var count: Int { _count }

    /// Whether there is no entry.
    public var isEmpty: Bool { _count == 0 }

    /// The value under `key`, or nil; setting nil removes the entry. Costs a path through the
    /// trie, a few nodes long, whatever the size.
    public subscript(key: Key) -> Value? {
        get { HashTrie.find(_root, key, HashTrie.hash(key)).map(Self.value(of:)) }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// The value under `key`, or `defaultValue` when there is none; setting it sets the entry.
    public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        set { updateValue(newValue, forKey: key) }
    }

    /// Sets the value under `key`; returns the value it replaced, or nil when the key is new.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let (root, old) = HashTrie.inserting(_root, key: key, hash: HashTrie.hash(key), value: value, 0)
        _root = root
        if old == nil { _count += 1 }
        return old.map(Self.value(of:))
    }

    /// Removes the entry under `key`; returns its value, or nil when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let (root, old) = HashTrie.removing(_root, key, HashTrie.hash(key), 0) else { return nil }
        _root = root
        _count -= 1
        return Self.value(of: old)
    }

    /// An entry's value: stored as `Value` by this dictionary, the only one that writes its trie.
    @inline(__always)
    fileprivate static func value(of entry: HashTrieEntry) -> Value {
        guard let value = entry.value as? Value else { preconditionFailure("a BigDictionary entry of another type") }
        return value
    }

    /// An entry's key, as ``value(of:)``.
    @inline(__always)
    fileprivate static func key(of entry: HashTrieEntry) -> Key {
        guard let key = entry.key as? Key else { preconditionFailure("a BigDictionary entry of another type") }
        return key
    }

    /// Removes every entry.
    public mutating func removeAll() {
        self = BigDictionary()
    }

    /// The keys, in the dictionary's order.
    public var keys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(_count)
        HashTrie.forEach(_root) { keys.append(Self.key(of: $0)) }
        return keys
    }

    /// The values, in the dictionary's order.
    public var values: [Value] {
        var values: [Value] = []
        values.reserveCapacity(_count)
        HashTrie.forEach(_root) { values.append(Self.value(of: $0)) }
        return values
    }

    /// A dictionary of the same keys, each value transformed.
    public func mapValues<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> BigDictionary<Key, T> {
        // The same keys, so the same slots: the trie is mapped node by node, not built again.
        let root = try HashTrie.mapEntries(_root) { entry in
            HashTrieEntry(hash: entry.hash, key: entry.key, value: try transform(Self.value(of: entry)))
        }
        return BigDictionary<Key, T>(root: root, count: _count)
    }

    /// The entries as a plain dictionary.
    public var dictionary: [Key: Value] {
        var dictionary: [Key: Value] = [:]
        dictionary.reserveCapacity(_count)
        HashTrie.forEach(_root) { dictionary[Self.key(of: $0)] = Self.value(of: $0) }
        return dictionary
    }

    fileprivate init(root: HashTrieNode, count: Int) {
        _root = root
        _count = count
    }

    /// The keys whose values differ between `old` and `new`, as `same` tells values apart, each
    /// once, unsorted: the entries the tries do not share (see `HashTrie.differences`), compared.
    /// A key present on one side only is among them.
    static func candidates(
        _ old: BigDictionary, _ new: BigDictionary, same: (Value, Value) -> Bool
    ) -> [Key] {
        var entries: [HashTrieEntry] = []
        HashTrie.differences(old._root, new._root, into: &entries)
        var keys: [Key] = []
        var seen = Set<Key>()
        for entry in entries {
            let key = key(of: entry)
            guard seen.insert(key).inserted else { continue }
            let before = HashTrie.find(old._root, key, entry.hash)
            let after = HashTrie.find(new._root, key, entry.hash)
            if let before, let after, before === after || same(value(of: before), value(of: after)) { continue }
            keys.append(key)
        }
        return keys
    }

    /// Whether the trie's shape is sound (tests).
    var isWellFormed: Bool { HashTrie.isWellFormed(_root, count: _count) }
}

extension BigDictionary: Sequence {
    /// Walks the trie depth first: a stack of nodes and the next slot of each.
    public struct Iterator: IteratorProtocol {
        /// The nodes being walked, each with its next slot: its entries first, then its children.
        private var stack: [(node: HashTrieNode, next: Int)]

        fileprivate init(root: HashTrieNode) {
            stack = [(root, 0)]
        }

        /// The next entry, or nil after the last.
        public mutating func next() -> (key: Key, value: Value)? {
            while let (node, next) = stack.last {
                let entries = node.entries.count
                guard next < entries + node.children.count else {
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                if next < entries {
                    let entry = node.entries[next]
                    return (BigDictionary.key(of: entry), BigDictionary.value(of: entry))
                }
                stack.append((node.children[next - entries], 0))
            }
            return nil
        }
    }

    /// An iterator over the entries.
    public func makeIterator() -> Iterator { Iterator(root: _root) }

    /// The number of entries.
    public var underestimatedCount: Int { _count }
}

extension BigDictionary: ExpressibleByDictionaryLiteral {
    /// A dictionary of the literal's entries (a repeated key is a precondition failure).
    public init(dictionaryLiteral elements: (Key, Value)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension BigDictionary: Equatable where Value: Equatable {
    /// Whether both hold the same keys with equal values. Costs the nodes they do not share: two
    /// states a few edits apart compare at the cost of those edits.
    public static func == (lhs: BigDictionary, rhs: BigDictionary) -> Bool {
        guard lhs._count == rhs._count else { return false }
        return lhs._root === rhs._root || candidates(lhs, rhs, same: ==).isEmpty
    }
}

extension BigDictionary: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes exactly as the plain dictionary of the same entries does.
    public func encode(to encoder: any Encoder) throws {
        try dictionary.encode(to: encoder)
    }
}

extension BigDictionary: Decodable where Key: Decodable, Value: Decodable {
    /// Decodes what a plain dictionary of the same types decodes.
    public init(from decoder: any Decoder) throws {
        self.init(try [Key: Value](from: decoder))
    }
}

extension BigDictionary: CustomStringConvertible {
    /// The entries, as a plain dictionary prints them.
    public var description: String { dictionary.description }
}

extension BigDictionary: Sendable {}
