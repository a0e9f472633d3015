import Foundation

// The containers of ``TreeDecoder``. Each typed `decode` goes to one generic method: the overloads
// exist because the protocols require them, and so that `decodeIfPresent` of a primitive goes
// through the decoder's own rules (the standard library's default would decode it as non-optional).

struct TreeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TreeDecoder
    let object: [String: JSONTree]
    let defaults: [String: JSONTree]?

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
        }
        return value.isNull
    }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.decode(type, key: key, value: object[key.stringValue], fallback: defaults?[key.stringValue])
    }

    private func decodeIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try decoder.decodeIfPresent(
            type, key: key, value: object[key.stringValue], fallback: defaults?[key.stringValue])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decode(type, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodeIfPresent(type as Bool.Type, key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodeIfPresent(type as String.Type, key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodeIfPresent(type as Double.Type, key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodeIfPresent(type as Float.Type, key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodeIfPresent(type as Int.Type, key)
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodeIfPresent(type as Int8.Type, key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodeIfPresent(type as Int16.Type, key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodeIfPresent(type as Int32.Type, key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodeIfPresent(type as Int64.Type, key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodeIfPresent(type as UInt.Type, key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodeIfPresent(type as UInt8.Type, key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodeIfPresent(type as UInt16.Type, key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodeIfPresent(type as UInt32.Type, key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodeIfPresent(type as UInt64.Type, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try decodeIfPresent(type, key) }

    private func nested(_ key: Key) throws -> TreeDecoder {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
        }
        return decoder.child(key: key, value: value, defaults: defaults?[key.stringValue])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try nested(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nested(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = TreeKey(stringValue: "super")
        return decoder.child(key: key, value: object["super"] ?? .null, defaults: defaults?["super"])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(key: key, value: object[key.stringValue] ?? .null, defaults: defaults?[key.stringValue])
    }
}

struct TreeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TreeDecoder
    let elements: [JSONTree]
    let defaults: [JSONTree]?
    private(set) var currentIndex = 0

    init(decoder: TreeDecoder, elements: [JSONTree], defaults: [JSONTree]?) {
        self.decoder = decoder
        self.elements = elements
        self.defaults = defaults
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private func atEnd(_ type: Any.Type) -> DecodingError {
        DecodingError.valueNotFound(
            type,
            DecodingError.Context(codingPath: codingPath + [TreeKey(index: currentIndex)], debugDescription: "at end"))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw atEnd(Any?.self) }
        guard elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    /// The next element as `T`, or the default's element at the same index when it does not decode.
    private mutating func next<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw atEnd(type) }
        let fallback = defaults.flatMap { currentIndex < $0.count ? $0[currentIndex] : nil }
        let value = try decoder.decode(
            type, key: TreeKey(index: currentIndex), value: elements[currentIndex], fallback: fallback)
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) }

    private mutating func nextDecoder() throws -> TreeDecoder {
        guard !isAtEnd else { throw atEnd(Any.self) }
        let fallback = defaults.flatMap { currentIndex < $0.count ? $0[currentIndex] : nil }
        let child = decoder.child(key: TreeKey(index: currentIndex), value: elements[currentIndex], defaults: fallback)
        currentIndex += 1
        return child
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try nextDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try nextDecoder()
    }
}

struct TreeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TreeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }

    /// The decoder's own value as `T`: the same place, one more level of recursion.
    private func same<T: Decodable>(_ type: T.Type) throws -> T {
        if let primitive = try decoder.unbox(type) { return primitive }
        let inner = TreeDecoder(
            notes: decoder.notes, parent: decoder.parent, key: decoder.key, value: decoder.value,
            defaults: decoder.defaults, recursion: decoder.recursion + 1)
        return try inner.decode(type)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try same(type) }
    func decode(_ type: String.Type) throws -> String { try same(type) }
    func decode(_ type: Double.Type) throws -> Double { try same(type) }
    func decode(_ type: Float.Type) throws -> Float { try same(type) }
    func decode(_ type: Int.Type) throws -> Int { try same(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try same(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try same(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try same(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try same(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try same(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try same(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try same(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try same(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try same(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try same(type) }
}

/// A key for an element of an array, or one made from a string.
struct TreeKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    /// Whether the key is a dictionary's: user data, never written in a path.
    let isDictionaryKey: Bool

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
        self.isDictionaryKey = false
    }

    init(dictionaryKey: String) {
        self.stringValue = dictionaryKey
        // As `Dictionary`'s own coding keys: an `Int` key is written as its digits.
        self.intValue = Int(dictionaryKey)
        self.isDictionaryKey = true
    }

    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
        self.isDictionaryKey = false
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}
