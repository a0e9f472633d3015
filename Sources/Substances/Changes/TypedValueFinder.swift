/// Finds the value a dotted key names in a state, as the state holds it (a `Date`, an `Int8`, a
/// struct of the user's own), by following the key through the value's own `encode(to:)`.
///
/// Why: a key the reduction found by flattening (every key of a state with custom `CodingKeys`,
/// a dictionary's entries, the keys below an optional struct) has its flattened value at hand,
/// which is the value's encoded form: a `Date` as a `Double`, a `UUID` as a `String`, a struct as a
/// `[String: Any]`. A handler that asks for the value by key is given what a property's value is
/// on the layout path instead: the typed value (decided in docs/decisions.md, "Two paths, one
/// answer"). Read on demand, when a value is asked for, from the states the changes keep.
///
/// The walk descends only along the key: a container's other keys are passed over without
/// encoding their values, a `[String: V]`'s entry is looked up rather than walked to, and the walk
/// stops at the key. Where it cannot tell (a ``FlaskRef``'s object, a ``FlaskDictRef``'s entries,
/// held flattened already; a key made by a nested container, such as an enum case's; a property
/// wrapper's storage), it says so, and the caller keeps the flattened value.
enum TypedValueFinder {
    /// What a walk found at a key.
    enum Lookup {
        /// The value at the key (nil for an encoded nil).
        case found(Any?)
        /// The key is not in the value's encoding.
        case absent
        /// The walk cannot say: the value at the key is held flattened, or has no value of its own.
        case unknown
    }

    /// The value the dotted key `key` names in `value`.
    static func value(atKey key: String, in value: some Encodable) -> Lookup {
        find(value, DottedKey.components(of: key)[...])
    }

    /// The value at `path` below `value`.
    static func find(_ value: any Encodable, _ path: ArraySlice<String>) -> Lookup {
        // A `FlaskRef` is read as the flattening reads it, as its object (what a handler has
        // always been given for such a key).
        if value is any ObjectReferencing { return .unknown }
        guard let first = path.first else { return .found(value) }
        if value is FlaskDictRef { return .unknown }
        // A dictionary keyed by strings or integers: the entry itself, not a walk through every
        // entry (an integer key is written as its decimal digits, and read back from them).
        if let entries = value as? any ArchivableEntries {
            guard let entry = entries.archivedEntry(first) else { return .absent }
            return find(entry, path.dropFirst())
        }
        if let entries = value as? any EntriesByIntegerKey {
            guard let key = Int(first), String(key) == first else { return .unknown }
            guard let entry = entries.entry(atIntegerKey: key) else { return .absent }
            return find(entry, path.dropFirst())
        }
        let walk = Walk(parent: value)
        do {
            try value.encode(to: PathEncoder(walk: walk, path: path))
        } catch {
            // `Walk.Stop` once found; an error of the value's own encoding leaves what was found.
        }
        return walk.result ?? .absent
    }

    /// One walk's outcome, set by the first container that meets the key.
    final class Walk {
        var result: Lookup?
        /// The value being walked: what tells a property wrapper's storage met at a key.
        let parent: any Encodable

        init(parent: any Encodable) {
            self.parent = parent
        }

        /// Whether `value`, met at a key of ``parent``, is the storage of a property wrapper
        /// (`@Clamped var level` stores `_level` and encodes it under `level`): the property's
        /// value is the wrapped one, which the walk cannot reach; the flattened value is kept.
        func isWrapperStorage(_ value: any Encodable) -> Bool {
            guard Mirror(reflecting: value).children.contains(where: { $0.label == "wrappedValue" }) else {
                return false
            }
            let type = ObjectIdentifier(Swift.type(of: value))
            return Mirror(reflecting: parent).children.contains {
                $0.label?.hasPrefix("_") == true && ObjectIdentifier(Swift.type(of: $0.value)) == type
            }
        }

        /// Thrown once the key is met, to end the walk there.
        struct Stop: Error {}
    }
}

/// An encoder that only follows one path: what `TypedValueFinder` walks a value with.
private struct PathEncoder: Encoder {
    let walk: TypedValueFinder.Walk
    /// The path below the value being encoded (never empty).
    let path: ArraySlice<String>
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(PathKeyedContainer<Key>(walk: walk, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        PathUnkeyedContainer(walk: walk, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        PathSingleValueContainer(walk: walk, path: path)
    }
}

extension TypedValueFinder.Walk {
    /// The value at `path`'s first component is `value` (nil: an encoded nil): what is at the rest
    /// of the path, and the walk ends. (A primitive comes here too: the key's value when the path
    /// ends there; else its `encode(to:)`, walked, finds no key below it.)
    func met(_ value: (any Encodable)?, path: ArraySlice<String>) throws {
        guard result == nil else { return }
        let rest = path.dropFirst()
        if let value {
            result = rest.isEmpty && isWrapperStorage(value) ? .unknown : TypedValueFinder.find(value, rest)
        } else {
            result = rest.isEmpty ? .found(nil) : .absent
        }
        throw Stop()
    }

    /// The path below a container made in place at `path`'s first component. A path that ends
    /// there names a container, not a value: the walk cannot say.
    func nestedPath(below path: ArraySlice<String>) -> ArraySlice<String>? {
        guard path.count > 1 else {
            result = .unknown
            return nil
        }
        return path.dropFirst()
    }
}

private struct PathKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let walk: TypedValueFinder.Walk
    /// The path below this container's value; nil for a container off the path, which takes
    /// everything and keeps nothing.
    let path: ArraySlice<String>?
    var codingPath: [any CodingKey] { [] }

    private func isOnPath(_ key: Key) -> Bool {
        walk.result == nil && path?.first == key.stringValue
    }

    mutating func encodeNil(forKey key: Key) throws {
        if isOnPath(key), let path { try walk.met(nil, path: path) }
    }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        if isOnPath(key), let path { try walk.met(value, path: path) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(PathKeyedContainer<NestedKey>(walk: walk, path: nested(at: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        PathUnkeyedContainer(walk: walk, path: nested(at: key))
    }

    /// The path below a container made in place at `key`, when the key is on the path.
    private func nested(at key: Key) -> ArraySlice<String>? {
        guard isOnPath(key), let path else { return nil }
        return walk.nestedPath(below: path)
    }

    mutating func superEncoder() -> any Encoder { OffPathEncoder(walk: walk) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { OffPathEncoder(walk: walk) }
}

private struct PathUnkeyedContainer: UnkeyedEncodingContainer {
    let walk: TypedValueFinder.Walk
    /// The path below this container's value (its first component an index); nil off the path.
    let path: ArraySlice<String>?
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(walk: TypedValueFinder.Walk, path: ArraySlice<String>?) {
        self.walk = walk
        self.path = path
    }

    /// Whether the next element is on the path; counts it.
    private mutating func nextIsOnPath() -> Bool {
        defer { count += 1 }
        return walk.result == nil && path?.first == String(count)
    }

    mutating func encodeNil() throws {
        if nextIsOnPath(), let path { try walk.met(nil, path: path) }
    }
    mutating func encode(_ value: some Encodable) throws {
        if nextIsOnPath(), let path { try walk.met(value, path: path) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        KeyedEncodingContainer(PathKeyedContainer<NestedKey>(walk: walk, path: nestedPath()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        PathUnkeyedContainer(walk: walk, path: nestedPath())
    }

    /// The path below a container made in place as the next element, when it is on the path.
    private mutating func nestedPath() -> ArraySlice<String>? {
        guard nextIsOnPath(), let path else { return nil }
        return walk.nestedPath(below: path)
    }

    mutating func superEncoder() -> any Encoder { OffPathEncoder(walk: walk) }
}

/// The container of a value encoded as one value: a wrapper (an optional, a type that encodes what
/// it wraps) whose wrapped value the path goes on into; a primitive has no key below it.
private struct PathSingleValueContainer: SingleValueEncodingContainer {
    let walk: TypedValueFinder.Walk
    /// The path below the value (never empty).
    let path: ArraySlice<String>
    var codingPath: [any CodingKey] { [] }

    // Every primitive has its own method: left to the generic one below, a primitive's
    // `encode(to:)` would ask for the same call again, without end (as `FlatSingleContainer`'s).
    mutating func encodeNil() throws { try noKeyBelow() }
    mutating func encode(_ value: Bool) throws { try noKeyBelow() }
    mutating func encode(_ value: String) throws { try noKeyBelow() }
    mutating func encode(_ value: Double) throws { try noKeyBelow() }
    mutating func encode(_ value: Float) throws { try noKeyBelow() }
    mutating func encode(_ value: Int) throws { try noKeyBelow() }
    mutating func encode(_ value: Int8) throws { try noKeyBelow() }
    mutating func encode(_ value: Int16) throws { try noKeyBelow() }
    mutating func encode(_ value: Int32) throws { try noKeyBelow() }
    mutating func encode(_ value: Int64) throws { try noKeyBelow() }
    mutating func encode(_ value: UInt) throws { try noKeyBelow() }
    mutating func encode(_ value: UInt8) throws { try noKeyBelow() }
    mutating func encode(_ value: UInt16) throws { try noKeyBelow() }
    mutating func encode(_ value: UInt32) throws { try noKeyBelow() }
    mutating func encode(_ value: UInt64) throws { try noKeyBelow() }
    mutating func encode(_ value: some Encodable) throws {
        guard walk.result == nil else { return }
        walk.result = TypedValueFinder.find(value, path)
        throw TypedValueFinder.Walk.Stop()
    }

    private func noKeyBelow() throws {
        guard walk.result == nil else { return }
        walk.result = .absent
        throw TypedValueFinder.Walk.Stop()
    }
}

/// An encoder off the path (a superclass's encoding): it takes everything and keeps nothing.
private struct OffPathEncoder: Encoder {
    let walk: TypedValueFinder.Walk
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(PathKeyedContainer<Key>(walk: walk, path: nil))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { PathUnkeyedContainer(walk: walk, path: nil) }
    func singleValueContainer() -> any SingleValueEncodingContainer { OffPathSingleValueContainer() }
}

private struct OffPathSingleValueContainer: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode(_ value: some Encodable) throws {}
}

/// A dictionary keyed by `Int`, whose entry `TypedValueFinder` looks up rather than walks to.
protocol EntriesByIntegerKey {
    /// The entry under `key`, as its own encodable value; nil when there is none.
    func entry(atIntegerKey key: Int) -> (any Encodable)?
}

extension Dictionary: EntriesByIntegerKey where Key == Int, Value: Encodable {
    func entry(atIntegerKey key: Int) -> (any Encodable)? { self[key] }
}
