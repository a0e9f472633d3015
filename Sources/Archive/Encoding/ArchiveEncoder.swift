import Foundation

/// Encodes a value as JSON for an archive, as `JSONEncoder` does with its default strategies
/// (`Data` as Base64, `Date` as seconds since 2001, `URL` as its string), with a bound on nesting.
///
/// Non-finite `Double` and `Float` values, which JSON has no number for, are written as the
/// strings `"NaN"`, `"Infinity"` and `"-Infinity"` (``nonFiniteNames``, `JSONEncoder`'s
/// `.convertToString` strategy with those names), and the archiver reads them back as the same
/// values: a state holding NaN is archived whole, never refused for one field.
///
/// A value nested deeper than ``maximumNesting`` arrays and objects is refused with an
/// `EncodingError`: Foundation's JSON readers reject deeper input, so such an archive could never
/// be read back, and encoding it recursed until the thread's stack ran out (about 5,000 levels on an
/// 8 MB stack). Recursion through `encode(to:)` is bounded too, for values that nest without
/// arrays or objects. The archiver encodes on a thread with a stack large enough for both bounds.
///
/// ```swift
/// let data = try ArchiveEncoder().encode(settings)
/// ```
public struct ArchiveEncoder: Sendable {
    /// The deepest nesting of arrays and objects written: 512, the most that Foundation's
    /// `JSONDecoder` and `JSONSerialization` read.
    public static let maximumNesting = 512

    /// The deepest recursion through `encode(to:)`, whether or not each level makes an array or an
    /// object: about 1 MB of stack in a debug build for a simple type, well within the archive
    /// thread's.
    static let maximumRecursion = 2_048

    /// The strings that stand for non-finite numbers: what `JSONEncoder` and `JSONDecoder` need to be
    /// told to write and read archives the same way
    /// (`.convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")`).
    public static let nonFiniteNames = (positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")

    /// A `JSONDecoder` that reads archives as the archiver does: non-finite numbers from
    /// ``nonFiniteNames``.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        let names = nonFiniteNames
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: names.positiveInfinity, negativeInfinity: names.negativeInfinity, nan: names.nan)
        return decoder
    }

    /// The underlying error of the `EncodingError` thrown for a value nested too deep.
    struct NestingLimit: Error {}

    /// An encoder with `JSONEncoder`'s default strategies.
    public init() {}

    /// The JSON bytes of `value`.
    ///
    /// - Throws: `EncodingError.invalidValue` for a value nested deeper than ``maximumNesting``,
    ///   a non-finite `Decimal`, or a value that encodes nothing; what `value`'s own `encode(to:)`
    ///   throws.
    /// - Complexity: O(*n*) in the size of the output.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let root = ValueEncoder(shared: ValueEncoder.Shared(), parent: nil, key: nil, nesting: 0, recursion: 0)
        let encoded = try root.encodeValue(value)
        if root.value == nil, try EncodedValue.primitive(value, at: root) == nil {
            throw EncodingError.invalidValue(
                "\(T.self)", EncodingError.Context(codingPath: [], debugDescription: "\(T.self) encoded no value"))
        }
        var writer = JSONWriter()
        writer.write(encoded)
        return Data(writer.bytes)
    }
}

/// A value being encoded, as the containers build it.
enum EncodedValue {
    case null
    case bool(Bool)
    /// The number's JSON text.
    case number(String)
    case string(String)
    case object(EncodedObject)
    case array(EncodedArray)
    /// What a `superEncoder()` encodes, read when the whole value is written.
    case deferred(ValueEncoder)
}

/// An object being encoded: keys in the order first encoded; encoding a key again replaces its value.
final class EncodedObject {
    private(set) var keys: [String] = []
    private(set) var values: [EncodedValue] = []
    /// Built once the object has a few keys, so that large dictionaries stay linear.
    private var positions: [String: Int]?

    func set(_ value: EncodedValue, forKey key: String) {
        if let index = position(of: key) {
            values[index] = value
            return
        }
        keys.append(key)
        values.append(value)
        positions?[key] = keys.count - 1
        if positions == nil, keys.count > 16 {
            positions = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { $1 })
        }
    }

    subscript(key: String) -> EncodedValue? {
        position(of: key).map { values[$0] }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }
}

/// An array being encoded.
final class EncodedArray {
    var values: [EncodedValue] = []
}

/// Writes encoded values as JSON bytes.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write(_ value: EncodedValue) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): write(string: text)
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for index in object.keys.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(string: object.keys[index])
                bytes.append(UInt8(ascii: ":"))
                write(object.values[index])
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for index in array.values.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(array.values[index])
            }
            bytes.append(UInt8(ascii: "]"))
        case .deferred(let encoder):
            write(encoder.value ?? .object(EncodedObject()))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private mutating func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(JSONWriter.hex[Int(byte >> 4)])
                bytes.append(JSONWriter.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
