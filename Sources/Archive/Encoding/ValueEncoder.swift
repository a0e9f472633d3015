import Foundation

/// The `Encoder` that ``ArchiveEncoder`` hands to each value it encodes.
///
/// Each encoder knows its parent and key (its coding path is built only when asked, for an error),
/// how many arrays and objects enclose it (`nesting`), and how many `encode(to:)` calls
/// (`recursion`). A container that would nest too deep cannot throw when it is made, so it is made
/// dead: its first use throws, and an encoding that never used it fails at the end.
final class ValueEncoder: Encoder {
    /// What every encoder of one encoding shares.
    final class Shared {
        /// The error of the first container made too deep: the encoding fails with it at the end.
        var tooDeep: EncodingError?
    }

    let shared: Shared
    let parent: ValueEncoder?
    let key: (any CodingKey)?
    let nesting: Int
    let recursion: Int
    /// What this encoder encoded.
    var value: EncodedValue?

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(shared: Shared, parent: ValueEncoder?, key: (any CodingKey)?, nesting: Int, recursion: Int) {
        self.shared = shared
        self.parent = parent
        self.key = key
        self.nesting = nesting
        self.recursion = recursion
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var encoder: ValueEncoder? = self
        while let current = encoder {
            if let key = current.key { path.append(key) }
            encoder = current.parent
        }
        return path.reversed()
    }

    /// The error for nesting deeper than allowed at `path`.
    static func tooDeep(at path: [any CodingKey], _ type: Any.Type) -> EncodingError {
        EncodingError.invalidValue(
            "\(type)",
            EncodingError.Context(
                codingPath: path,
                debugDescription: "nested deeper than \(ArchiveEncoder.maximumNesting) arrays and objects",
                underlyingError: ArchiveEncoder.NestingLimit()))
    }

    /// Records that a container too deep was made here, and returns the error its uses throw.
    func markTooDeep() -> EncodingError {
        let error = ValueEncoder.tooDeep(at: codingPath, Any.self)
        if shared.tooDeep == nil { shared.tooDeep = error }
        return error
    }

    /// `value` encoded at this encoder's place: a primitive directly, anything else through its
    /// `encode(to:)`, given this encoder.
    func encodeValue<T: Encodable>(_ value: T) throws -> EncodedValue {
        if let primitive = try EncodedValue.primitive(value, at: self) { return primitive }
        guard recursion <= ArchiveEncoder.maximumRecursion else {
            throw ValueEncoder.tooDeep(at: codingPath, T.self)
        }
        try value.encode(to: self)
        if let error = shared.tooDeep { throw error }
        // `JSONEncoder` writes a nested value that encodes nothing as an empty object.
        return self.value ?? .object(EncodedObject())
    }

    /// A child encoder for a value inside one of this encoder's containers.
    func child(key: any CodingKey) -> ValueEncoder {
        ValueEncoder(shared: shared, parent: self, key: key, nesting: nesting + 1, recursion: recursion + 1)
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object(let object) = value {
            return KeyedEncodingContainer(KeyedContainer(encoder: self, object: object, dead: nil))
        }
        let object = EncodedObject()
        value = .object(object)
        let dead = nesting >= ArchiveEncoder.maximumNesting ? markTooDeep() : nil
        return KeyedEncodingContainer(KeyedContainer(encoder: self, object: object, dead: dead))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let array) = value {
            return UnkeyedContainer(encoder: self, array: array, dead: nil)
        }
        let array = EncodedArray()
        value = .array(array)
        let dead = nesting >= ArchiveEncoder.maximumNesting ? markTooDeep() : nil
        return UnkeyedContainer(encoder: self, array: array, dead: dead)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }
}

extension EncodedValue {
    /// `value` as a JSON primitive when it is one of the types JSON holds directly (or `Data`,
    /// `URL`, `Decimal`, which `JSONEncoder` writes as strings and numbers); nil otherwise.
    static func primitive<T: Encodable>(_ value: T, at encoder: ValueEncoder) throws -> EncodedValue? {
        // Metatypes compared first: a cast per type tried would cost as much as encoding a small struct.
        // Then one checked cast, to the type matched: too small a part of an encoding for an unchecked
        // one (docs/performance.md, "What each unsafe primitive saves").
        let type = T.self
        if type == String.self { return .string(value as! String) }
        if type == Int.self { return .number(String(value as! Int)) }
        if type == Bool.self { return .bool(value as! Bool) }
        if type == Double.self { return try .finite(value as! Double, at: encoder) }
        if type == Float.self { return try .finite(value as! Float, at: encoder) }
        if type == Int64.self { return .number(String(value as! Int64)) }
        if type == Int32.self { return .number(String(value as! Int32)) }
        if type == Int16.self { return .number(String(value as! Int16)) }
        if type == Int8.self { return .number(String(value as! Int8)) }
        if type == UInt.self { return .number(String(value as! UInt)) }
        if type == UInt64.self { return .number(String(value as! UInt64)) }
        if type == UInt32.self { return .number(String(value as! UInt32)) }
        if type == UInt16.self { return .number(String(value as! UInt16)) }
        if type == UInt8.self { return .number(String(value as! UInt8)) }
        if type == Data.self { return .string((value as! Data).base64EncodedString()) }
        if type == URL.self { return .string((value as! URL).absoluteString) }
        if type == Decimal.self {
            let decimal = value as! Decimal
            guard decimal.isFinite else { throw invalid(decimal, at: encoder) }
            return .number(decimal.description)
        }
        return nil
    }

    /// A floating-point number: finite ones as JSON numbers, the others as the strings
    /// `JSONEncoder`'s `.convertToString` strategy writes (see ``ArchiveEncoder/nonFiniteNames``).
    static func finite<F: BinaryFloatingPoint & LosslessStringConvertible>(_ number: F, at encoder: ValueEncoder)
        throws -> EncodedValue
    {
        guard number.isFinite else {
            let names = ArchiveEncoder.nonFiniteNames
            return .string(number.isNaN ? names.nan : number < 0 ? names.negativeInfinity : names.positiveInfinity)
        }
        return .number(number.description)
    }

    private static func invalid(_ value: Any, at encoder: ValueEncoder) -> EncodingError {
        EncodingError.invalidValue(
            value,
            EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "\(type(of: value)) is not a finite number and JSON holds no other"))
    }
}

// MARK: Containers
