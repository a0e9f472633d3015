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
