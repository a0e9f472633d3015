import Foundation

struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let object: EncodedObject
    /// The error every use throws, for a container made too deep.
    let dead: EncodingError?

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func live() throws {
        if let dead { throw dead }
    }

    mutating func encodeNil(forKey key: Key) throws {
        try live()
        object.set(.null, forKey: key.stringValue)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try live()
        object.set(.bool(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try live()
        object.set(.string(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try live()
        object.set(.number(String(value)), forKey: key.stringValue)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try live()
        object.set(try encoder.child(key: key).encodeValue(value), forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = encoder.child(key: key)
        if dead == nil { object.set(.deferred(child), forKey: key.stringValue) }
        return child.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = encoder.child(key: key)
        if dead == nil { object.set(.deferred(child), forKey: key.stringValue) }
        return child.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(forKey: SuperKey())
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(forKey: key as any CodingKey)
    }

    private func superEncoder(forKey key: any CodingKey) -> any Encoder {
        let child = encoder.child(key: key)
        if dead == nil { object.set(.deferred(child), forKey: key.stringValue) }
        return child
    }
}

/// The key `JSONEncoder` gives a superclass's value: "super".
struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }

    init() {}

    init?(stringValue: String) { nil }

    init?(intValue: Int) { nil }
}

struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(_ index: Int) {
        self.intValue = index
    }

    init?(stringValue: String) { nil }

    init?(intValue: Int) {
        self.intValue = intValue
    }
}

struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let array: EncodedArray
    let dead: EncodingError?

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { array.values.count }

    private func live() throws {
        if let dead { throw dead }
    }

    mutating func encodeNil() throws {
        try live()
        array.values.append(.null)
    }

    mutating func encode(_ value: Bool) throws {
        try live()
        array.values.append(.bool(value))
    }

    mutating func encode(_ value: String) throws {
        try live()
        array.values.append(.string(value))
    }

    mutating func encode(_ value: Int) throws {
        try live()
        array.values.append(.number(String(value)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try live()
        array.values.append(try encoder.child(key: IndexKey(count)).encodeValue(value))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = encoder.child(key: IndexKey(count))
        if dead == nil { array.values.append(.deferred(child)) }
        return child.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = encoder.child(key: IndexKey(count))
        if dead == nil { array.values.append(.deferred(child)) }
        return child.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.child(key: IndexKey(count))
        if dead == nil { array.values.append(.deferred(child)) }
        return child
    }
}

struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {
        encoder.value = .null
    }

    mutating func encode(_ value: Bool) throws {
        encoder.value = .bool(value)
    }

    mutating func encode(_ value: String) throws {
        encoder.value = .string(value)
    }

    mutating func encode(_ value: Int) throws {
        encoder.value = .number(String(value))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        // The same place in the JSON, so no deeper; but one more call of `encode(to:)`.
        let inner = ValueEncoder(
            shared: encoder.shared, parent: encoder.parent, key: encoder.key, nesting: encoder.nesting,
            recursion: encoder.recursion + 1)
        encoder.value = try inner.encodeValue(value)
    }
}
