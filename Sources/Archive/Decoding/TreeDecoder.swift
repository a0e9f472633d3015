import Foundation

/// The `Decoder` of ``TolerantDecoding``: decodes a value from a ``JSONTree``, with the same place
/// in the default value's tree at hand, so that each property that does not fit is decoded from
/// its default instead (see ``decode(_:key:value:fallback:)``).
///
/// Reads values as `JSONDecoder` does with its default strategies: `Data` from Base64, `Date` from
/// seconds since 2001, `URL` from its string, an integer from a number that holds one exactly
/// (`1.0` or `1e2`, not `1.5` or `1e30`).
final class TreeDecoder: Decoder {
    /// The coding paths decoded from their defaults or left out, in the order met. A value that
    /// fails as a whole takes back the notes of the values inside it.
    final class Notes {
        private(set) var all: [TolerantDecoding.Note] = []

        var mark: Int { all.count }

        func rewind(to mark: Int) {
            if all.count > mark { all.removeSubrange(mark...) }
        }

        func add(_ path: [any CodingKey], leftOut: Bool, reason: String) {
            all.append(TolerantDecoding.Note(path: ArchiveErrorReason.dotted(path), leftOut: leftOut, reason: reason))
        }
    }

    /// The deepest recursion through `init(from:)`, as the encoder's: values nested without arrays or
    /// objects recurse without going deeper in the tree.
    static let maximumRecursion = ArchiveEncoder.maximumRecursion

    let notes: Notes
    let parent: TreeDecoder?
    let key: (any CodingKey)?
    /// The archived value here.
    let value: JSONTree
    /// The default value's tree at the same place, if it has one.
    let defaults: JSONTree?
    let recursion: Int

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(
        notes: Notes, parent: TreeDecoder?, key: (any CodingKey)?, value: JSONTree, defaults: JSONTree?,
        recursion: Int
    ) {
        self.notes = notes
        self.parent = parent
        self.key = key
        self.value = value
        self.defaults = defaults
        self.recursion = recursion
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var decoder: TreeDecoder? = self
        while let current = decoder {
            if let key = current.key { path.append(key) }
            decoder = current.parent
        }
        return path.reversed()
    }

    /// This decoder's value as `T`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let primitive = try unbox(T.self) { return primitive }
        guard recursion <= TreeDecoder.maximumRecursion else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: "nested too deep"))
        }
        if let collection = T.self as? any LossyDecodable.Type {
            return try collection.decodeLossily(from: self) as! T
        }
        return try T(from: self)
    }

    /// `T` decoded from `value`, the archived value at `key` of this decoder's container, or, when
    /// it is missing or does not decode, from `fallback`, the default's (a note says so).
    ///
    /// - Throws: when neither decodes; the caller's value then fails as a whole.
    func decode<T: Decodable>(_ type: T.Type, key: any CodingKey, value: JSONTree?, fallback: JSONTree?) throws -> T {
        let mark = notes.mark
        var failure: (any Error)?
        if let value {
            do {
                return try child(key: key, value: value, defaults: fallback).decode(T.self)
            } catch {
                notes.rewind(to: mark)
                failure = error
            }
        }
        guard let fallback else {
            throw failure
                ?? DecodingError.keyNotFound(
                    key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
        }
        let restored = try child(key: key, value: fallback, defaults: nil).decode(T.self)
        notes.add(
            codingPath + [key], leftOut: false,
            reason: failure.map(ArchiveErrorReason.describe)
                ?? "missing at \(ArchiveErrorReason.dotted(codingPath + [key]))")
        return restored
    }

    /// An optional `T` at `key`: nil when missing or null; when it does not decode, the default's
    /// (nil when the default has none).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, key: any CodingKey, value: JSONTree?, fallback: JSONTree?)
        throws -> T?
    {
        guard let value else { return nil }
        if case .null = value { return nil }
        let mark = notes.mark
        do {
            return try child(key: key, value: value, defaults: fallback).decode(T.self)
        } catch {
            notes.rewind(to: mark)
            let reason = ArchiveErrorReason.describe(error)
            var restored: T?
            if let fallback, !fallback.isNull {
                restored = try child(key: key, value: fallback, defaults: nil).decode(T.self)
            }
            notes.add(codingPath + [key], leftOut: false, reason: reason)
            return restored
        }
    }

    func child(key: any CodingKey, value: JSONTree, defaults: JSONTree?) -> TreeDecoder {
        TreeDecoder(notes: notes, parent: self, key: key, value: value, defaults: defaults, recursion: recursion + 1)
    }

    func mismatch(_ type: Any.Type, _ value: JSONTree) -> DecodingError {
        DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(value.kind)"))
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: Any].self, value) }
        var defaultObject: [String: JSONTree]?
        if case .object(let defaults) = defaults { defaultObject = defaults }
        return KeyedDecodingContainer(TreeKeyedContainer(decoder: self, object: object, defaults: defaultObject))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self, value) }
        var defaultElements: [JSONTree]?
        if case .array(let defaults) = defaults { defaultElements = defaults }
        return TreeUnkeyedContainer(decoder: self, elements: elements, defaults: defaultElements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TreeSingleValueContainer(decoder: self)
    }
}

extension JSONTree {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

// MARK: Primitives

extension TreeDecoder {
    /// This decoder's value as `T` when `T` is a type JSON holds directly (or `Data`, `URL`,
    /// `Decimal`); nil for other types.
    func unbox<T>(_ type: T.Type) throws -> T? {
        // Metatypes compared first: a cast per type tried would cost as much as a small struct.
        // Then one checked cast, to the type matched: too small a part of a restore for an unchecked
        // one (docs/performance.md, "What each unsafe primitive saves").
        if type == String.self {
            guard case .string(let text) = value else { throw mismatch(type, value) }
            return (text as! T)
        }
        if type == Int.self { return (try integer(Int.self) as! T) }
        if type == Bool.self {
            guard case .bool(let flag) = value else { throw mismatch(type, value) }
            return (flag as! T)
        }
        if type == Double.self { return (try floatingPoint(Double.self) as! T) }
        if type == Float.self { return (try floatingPoint(Float.self) as! T) }
        if type == Int64.self { return (try integer(Int64.self) as! T) }
        if type == Int32.self { return (try integer(Int32.self) as! T) }
        if type == Int16.self { return (try integer(Int16.self) as! T) }
        if type == Int8.self { return (try integer(Int8.self) as! T) }
        if type == UInt.self { return (try integer(UInt.self) as! T) }
        if type == UInt64.self { return (try integer(UInt64.self) as! T) }
        if type == UInt32.self { return (try integer(UInt32.self) as! T) }
        if type == UInt16.self { return (try integer(UInt16.self) as! T) }
        if type == UInt8.self { return (try integer(UInt8.self) as! T) }
        if type == Data.self {
            guard case .string(let text) = value else { throw mismatch(type, value) }
            guard let data = Data(base64Encoded: text) else { throw corrupted("a string that is not Base64") }
            return (data as! T)
        }
        if type == URL.self {
            guard case .string(let text) = value else { throw mismatch(type, value) }
            guard let url = URL(string: text) else { throw corrupted("a string that is not a URL") }
            return (url as! T)
        }
        if type == Decimal.self {
            guard case .number(let text) = value else { throw mismatch(type, value) }
            guard let decimal = Decimal(string: text) else { throw corrupted("a number that does not fit in Decimal") }
            return (decimal as! T)
        }
        return nil
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard case .number(let text) = value else { throw mismatch(type, value) }
        if let number = I(text) { return number }
        // `1.0` and `1e2` hold integers; `1.5` and `1e30` (in an Int) do not.
        if let digits = TreeDecoder.integerDigits(text), let number = I(digits) { return number }
        throw corrupted("a number that does not fit in \(type)")
    }

    /// The digits of the integer that the JSON number `text` (with a fraction or an exponent)
    /// holds exactly, or nil; worked on the digits, since a `Double` would round large ones.
    static func integerDigits(_ text: String) -> String? {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative { rest = rest.dropFirst() }
        var exponent = 0
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(rest[rest.index(after: e)...]), abs(value) < 1_000 else { return nil }
            exponent = value
            rest = rest[..<e]
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        let integral = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        var digits = Array(integral + fraction)
        let point = integral.count + exponent
        if point >= digits.count {
            guard point - digits.count < 40 else { return nil }
            digits += Array(repeating: "0", count: point - digits.count)
        } else {
            guard digits[max(0, point)...].allSatisfy({ $0 == "0" }) else { return nil }
            digits = Array(digits[..<max(0, point)])
        }
        let trimmed = String(digits.drop(while: { $0 == "0" }))
        if trimmed.isEmpty { return "0" }
        return negative ? "-" + trimmed : trimmed
    }

    func floatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(_ type: F.Type) throws -> F {
        if case .string(let text) = value {
            // The names the archive encoder writes for numbers JSON cannot hold.
            let names = ArchiveEncoder.nonFiniteNames
            switch text {
            case names.nan: return .nan
            case names.positiveInfinity: return .infinity
            case names.negativeInfinity: return -.infinity
            default: throw mismatch(type, value)
            }
        }
        guard case .number(let text) = value else { throw mismatch(type, value) }
        guard let number = F(text), number.isFinite else { throw corrupted("a number that does not fit in \(type)") }
        return number
    }

    func corrupted(_ what: String) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "found \(what)"))
    }
}
