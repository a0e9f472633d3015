import Foundation
import Substances

/// A payload value as a ``MixJournal`` exports it: plain JSON, so a journal written to a file can
/// be read back and replayed. Its `Codable` form tags what plain JSON would lose (whole doubles,
/// secrets, unrepresentable values); read a value as a type of your own with
/// ``decoded(as:)``.
///
/// Strings, integers, floating-point numbers, booleans, arrays and string-keyed dictionaries of
/// these, and `Flask.Nil`, are kept. Anything else (your own types, object references) is recorded
/// by type name only, as ``unrepresentable(type:)``: a mix with such a payload is listed by a
/// replay as skipped rather than replayed with wrong data.
public enum JournalValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JournalValue])
    case object([String: JournalValue])
    /// A value JSON cannot carry; its type's name.
    case unrepresentable(type: String)
    /// A value that is not recorded: a key the state marks secret (`State.secretKeys`).
    case redacted

    /// The journal form of a `Codable` value (a typed action): its JSON encoding, read back as
    /// plain values; a value that is not `Encodable`, or fails to encode, by its type's name.
    ///
    /// A number JSON has no spelling for (NaN, an infinity, of a `Double` or a `Float`) is a
    /// ``double(_:)`` like any other.
    public init(encoding value: Any) {
        // Read back with `JSONDecoder`, whose numbers are exact: `JSONSerialization` turned some
        // doubles into decimals and back (0.1 + 0.2 became 0.3000000000000001).
        guard let encodable = value as? any Encodable,
            let decoded = JournalValue.encoded(encodable) ?? JournalValue.encodedWithNonFiniteNumbers(encodable)
        else {
            self = .unrepresentable(type: "\(type(of: value))")
            return
        }
        self = decoded.limitingNesting(else: "\(type(of: value))")
    }

    /// `value`'s JSON encoding read back as plain values; nil if it fails to encode. With a
    /// `marker`, NaN and the infinities are written as strings: the marker, then how
    /// ``stateJSON(over:)`` spells them (see ``nonFinite``).
    private static func encoded(_ value: any Encodable, nonFinite marker: String? = nil) -> JournalValue? {
        let encoder = JSONEncoder()
        if let marker {
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: marker + nonFinite.positiveInfinity,
                negativeInfinity: marker + nonFinite.negativeInfinity,
                nan: marker + nonFinite.nan)
        }
        guard let data = try? encoder.encode(value) else { return nil }
        return try? JournalValue(plainJSON: data)
    }

    /// The two markers of ``encodedWithNonFiniteNumbers(_:)``.
    private static let nonFiniteMarkers = ("\u{1}flask.a", "\u{1}flask.b")

    /// `value`'s encoding when it holds a number JSON has no spelling for, which fails the plain
    /// encoding (a state that holds one anywhere was recorded as unrepresentable whole): encoded
    /// twice, each such number spelled as a string with one of two markers, and read where the
    /// two differ as the number. Exact by construction: a string of the state's own is the same
    /// in both encodings, whatever it says, and stays a string.
    private static func encodedWithNonFiniteNumbers(_ value: any Encodable) -> JournalValue? {
        guard let first = encoded(value, nonFinite: nonFiniteMarkers.0),
            let second = encoded(value, nonFinite: nonFiniteMarkers.1)
        else { return nil }
        return nonFiniteNumbers(first, second)
    }

    /// See ``encodedWithNonFiniteNumbers(_:)``: `first` and `second`, one value's two encodings,
    /// as one, with the numbers they spell apart read; nil if they differ in any other way.
    private static func nonFiniteNumbers(_ first: JournalValue, _ second: JournalValue) -> JournalValue? {
        switch (first, second) {
        case (.string(let one), .string(let other)):
            if one == other { return first }
            // The same spelling after each marker: the number (`Double` reads each spelling).
            let (firstMarker, secondMarker) = nonFiniteMarkers
            guard one.hasPrefix(firstMarker), other.hasPrefix(secondMarker),
                one.dropFirst(firstMarker.count) == other.dropFirst(secondMarker.count),
                let number = Double(String(one.dropFirst(firstMarker.count))), !number.isFinite
            else { return nil }
            return .double(number)
        case (.array(let ones), .array(let others)):
            guard ones.count == others.count else { return nil }
            var values: [JournalValue] = []
            values.reserveCapacity(ones.count)
            for (one, other) in zip(ones, others) {
                guard let value = nonFiniteNumbers(one, other) else { return nil }
                values.append(value)
            }
            return .array(values)
        case (.object(let ones), .object(let others)):
            guard ones.count == others.count else { return nil }
            var values: [String: JournalValue] = [:]
            values.reserveCapacity(ones.count)
            for (key, one) in ones {
                guard let other = others[key], let value = nonFiniteNumbers(one, other) else { return nil }
                values[key] = value
            }
            return .object(values)
        default:
            return first == second ? first : nil
        }
    }

    /// How deep a recorded value may nest its arrays and objects. A journal's line holds a value a
    /// few levels down (an entry, its changes, a change's values), and a line nested deeper than a
    /// JSON reader accepts (512) can be neither written nor read back: a deeper value is recorded
    /// as ``unrepresentable(type:)``, in memory as in the lines, rather than lose its entry's line.
    static let nestingLimit = 500

    /// The value, or, nested deeper than ``nestingLimit``, ``unrepresentable(type:)`` with `type`.
    func limitingNesting(else type: @autoclosure () -> String) -> JournalValue {
        nesting <= JournalValue.nestingLimit ? self : .unrepresentable(type: type())
    }

    /// How deep its arrays and objects nest (0 for a scalar).
    private var nesting: Int {
        switch self {
        case .array(let values): 1 + values.reduce(0) { max($0, $1.nesting) }
        case .object(let values): 1 + values.values.reduce(0) { max($0, $1.nesting) }
        default: 0
        }
    }

    /// The plain JSON this value stands for (numbers exact, no tags), nil when it holds something
    /// unrepresentable: what a typed action is decoded from when a journal is replayed.
    var jsonData: Data? {
        guard isRepresentable else { return nil }
        return try? JSONEncoder().encode(PlainJSON(value: self))
    }

    /// A journal value encoded as plain JSON, for a `Decodable` type to read.
    private struct PlainJSON: Encodable {
        let value: JournalValue

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch value {
            case .null, .unrepresentable, .redacted: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let values): try container.encode(values.map(PlainJSON.init(value:)))
            case .object(let values): try container.encode(values.mapValues(PlainJSON.init(value:)))
            }
        }
    }

    /// The journal form of a payload value. Nested deeper than a journal's line can hold, it is
    /// ``unrepresentable(type:)``, as a state's value is.
    public init(_ value: Any) {
        self.init(payloadValue: value, depth: 0)
    }

    /// The journal form of a payload value `depth` levels down an array or a dictionary.
    private init(payloadValue value: Any, depth: Int) {
        guard depth <= JournalValue.nestingLimit else {
            self = .unrepresentable(type: "a value nested more than \(JournalValue.nestingLimit) levels deep")
            return
        }
        // A Foundation number says what it holds; `as Bool` would take any 0 or 1 for a boolean on
        // Apple platforms. The dictionary references' conversion already tells them apart.
        if type(of: value) is NSNumber.Type, let number = FlaskDictRef.flatten(value) {
            self = JournalValue(flattened: number)
            return
        }
        switch value {
        case is FlaskNull, is NSNull: self = .null
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as any BinaryInteger:
            self = Int(exactly: value).map(JournalValue.int) ?? .unrepresentable(type: "\(type(of: value))")
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as String: self = .string(value)
        case let value as [Any]: self = .array(value.map { JournalValue(payloadValue: $0, depth: depth + 1) })
        case let value as [String: Any]:
            self = .object(value.mapValues { JournalValue(payloadValue: $0, depth: depth + 1) })
        default:
            // An optional: what it holds, as itself (nil: null); anything else unwraps to itself.
            guard let unwrapped = unwrappingOptionals(value) else {
                self = .null
                return
            }
            self =
                isSameType(unwrapped, value)
                ? .unrepresentable(type: "\(type(of: value))") : JournalValue(payloadValue: unwrapped, depth: depth)
        }
    }

    /// The value, a state rebuilt by `MixJournal.Document.states(after:)` (or recorded whole), read
    /// as your state type `S` from the plain JSON it stands for: whole doubles as numbers, objects
    /// as objects whatever their keys, no tag of the journal's `Codable` form (which is for reading
    /// journals back, not your types). What the journal never records, the state's secret keys and
    /// `_` properties, takes the values of a new `S()`.
    ///
    /// NaN and the infinities (which plain JSON has no spelling for) are read as what they are, a
    /// `Double`'s or a `Float`'s.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the value holds an ``unrepresentable(type:)``
    ///   part; otherwise what `JSONDecoder` throws for `S`.
    public func decoded<S: State>(as type: S.Type) throws -> S {
        guard let data = stateJSON(over: S()) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "the value holds an unrepresentable part: \(self)"))
        }
        return try JournalValue.stateDecoder.decode(type, from: data)
    }

    /// The plain JSON of this recorded state with what the journal never records (secret keys, `_`
    /// properties) taken from `own`, a state of the same type: what a replay and ``decoded(as:)``
    /// decode, with ``stateDecoder``. Nil when it holds an unrepresentable part.
    func stateJSON<S: State>(over own: S) -> Data? {
        let secrets = SecretKeys.of(S.self)
        let encoded = JournalValue(encoding: own)
        let state = puttingBack(
            secrets, from: encoded, stripped: encoded.strippingInternalKeys(of: own), progress: secrets.root
        )
        .droppingRedactedKeys
        guard state.isRepresentable else { return nil }
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: Self.nonFinite.positiveInfinity, negativeInfinity: Self.nonFinite.negativeInfinity,
            nan: Self.nonFinite.nan)
        return try? encoder.encode(PlainJSON(value: state))
    }

    /// How ``stateJSON(over:)`` spells NaN and the infinities, which plain JSON has none for: as
    /// strings that ``stateDecoder`` reads back as those numbers where it decodes a `Double` or a
    /// `Float` (and as themselves where it decodes a string: a string of the state's own, whatever
    /// it says, is one). No character a JSON string escapes: `JSONDecoder` compares them escaped.
    private static let nonFinite = (positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")

    /// The decoder of a recorded state's plain JSON (see ``stateJSON(over:)``).
    static var stateDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: nonFinite.positiveInfinity, negativeInfinity: nonFinite.negativeInfinity,
            nan: nonFinite.nan)
        return decoder
    }

    /// Whether the value, and everything inside it, can be replayed.
    public var isRepresentable: Bool {
        switch self {
        case .unrepresentable, .redacted: false
        case .array(let values): values.allSatisfy(\.isRepresentable)
        case .object(let values): values.values.allSatisfy(\.isRepresentable)
        default: true
        }
    }

    /// The Swift value a mixer reads back: `Int`, `Double`, `String`, `Bool`, `Flask.Nil`, arrays
    /// (typed `[Int]`, `[Double]`, `[String]`, `[Bool]` when all elements are of one of those
    /// types) and `[String: any Sendable]`.
    public var value: any Sendable {
        switch self {
        case .null: FlaskNull()
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .object(let values): values.mapValues(\.value) as [String: any Sendable]
        case .unrepresentable(let type): "<\(type)>"
        case .redacted: "<redacted>"
        case .array(let values):
            if let ints = JournalValue.all(values, as: Int.self) {
                ints
            } else if let doubles = JournalValue.all(values, as: Double.self) {
                doubles
            } else if let strings = JournalValue.all(values, as: String.self) {
                strings
            } else if let bools = JournalValue.all(values, as: Bool.self) {
                bools
            } else {
                values.map(\.value) as [any Sendable]
            }
        }
    }

    private static func all<T>(_ values: [JournalValue], as type: T.Type) -> [T]? {
        var typed: [T] = []
        for value in values {
            guard let element = value.value as? T else { return nil }
            typed.append(element)
        }
        return values.isEmpty ? nil : typed
    }

    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let values):
            "[" + values.keys.sorted().map { "\($0): \(values[$0]!)" }.joined(separator: ", ") + "]"
        case .unrepresentable(let type): "<\(type)>"
        case .redacted: "<redacted>"
        }
    }

    // MARK: Codable: plain JSON; whole doubles and unrepresentable values are tagged so they
    // read back as what they were. A tag is an object of one key, `$double`, `$unrepresentable`
    // or `$redacted`; an object of the state's whose one key is a tag's (a dictionary
    // `["$double": …]`) is written inside an `$object` tag, so that it reads back as itself.

    private enum Tag: String, CodingKey {
        case double = "$double"
        case unrepresentable = "$unrepresentable"
        case redacted = "$redacted"
        case object = "$object"
    }

    /// Whether an object of `values` would read back as a tag: one key, a tag's.
    static func looksTagged(_ values: [String: JournalValue]) -> Bool {
        values.count == 1 && values.keys.first.flatMap(Tag.init(rawValue:)) != nil
    }

    /// The value plain JSON `data` stands for (a state's or an action's `Codable` encoding): its
    /// objects are objects, whatever their keys, with no tag read in them.
    init(plainJSON data: Data) throws {
        let decoder = JSONDecoder()
        decoder.userInfo[Self.plainJSONKey] = true
        self = try decoder.decode(JournalValue.self, from: data)
    }

    /// Set in a decoder's `userInfo` for ``init(plainJSON:)``.
    private static let plainJSONKey = CodingUserInfoKey(rawValue: "FlaskTools.JournalValue.plainJSON")!

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let values) where Self.looksTagged(values):
            var container = encoder.container(keyedBy: Tag.self)
            try container.encode(values, forKey: .object)
        case .double(let value) where value.rounded() == value || !value.isFinite:
            var container = encoder.container(keyedBy: Tag.self)
            try container.encode("\(value)", forKey: .double)
        case .unrepresentable(let type):
            var container = encoder.container(keyedBy: Tag.self)
            try container.encode(type, forKey: .unrepresentable)
        case .redacted:
            var container = encoder.container(keyedBy: Tag.self)
            try container.encode(true, forKey: .redacted)
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let values): try container.encode(values)
            case .object(let values): try container.encode(values)
            case .unrepresentable, .redacted: break
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        // The container that fits is asked for first, so that an object or an array (every level
        // of a deep value) is read without a failed attempt: a decoder's failure costs an error
        // that names the whole coding path, and trying scalars first at every level of a value
        // nested 500 deep took seconds.
        if let object = try? decoder.container(keyedBy: AnyJSONKey.self) {
            let keys = object.allKeys
            if keys.count == 1, let tag = Tag(rawValue: keys[0].stringValue),
                decoder.userInfo[Self.plainJSONKey] as? Bool != true
            {
                switch tag {
                case .object:
                    // Read once: a failure inside is thrown, not retried as a plain object (a value
                    // of such tags nested in each other took time exponential in their number).
                    if let inner = try? object.nestedContainer(keyedBy: AnyJSONKey.self, forKey: keys[0]) {
                        var values: [String: JournalValue] = [:]
                        for key in inner.allKeys {
                            values[key.stringValue] = try inner.decode(JournalValue.self, forKey: key)
                        }
                        self = .object(values)
                        return
                    }
                case .double:
                    if let value = Double(try object.decode(String.self, forKey: keys[0])) {
                        self = .double(value)
                        return
                    }
                case .unrepresentable:
                    self = .unrepresentable(type: try object.decode(String.self, forKey: keys[0]))
                    return
                case .redacted:
                    if try object.decode(Bool.self, forKey: keys[0]) {
                        self = .redacted
                        return
                    }
                }
            }
            var values: [String: JournalValue] = [:]
            values.reserveCapacity(keys.count)
            for key in keys { values[key.stringValue] = try object.decode(JournalValue.self, forKey: key) }
            self = .object(values)
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var values: [JournalValue] = []
            if let count = array.count { values.reserveCapacity(count) }
            while !array.isAtEnd { values.append(try array.decode(JournalValue.self)) }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            // JSON writes -0.0 as `-0`, which reads as the integer 0: kept as the double it was.
            if value == 0, let double = try? container.decode(Double.self), double.sign == .minus {
                self = .double(double)
            } else {
                self = .int(value)
            }
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}

/// Any key of a JSON object, for reading one whose keys are not known in advance.
private struct AnyJSONKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Whether `a` and `b` hold values of one type: a value that `unwrappingOptionals(_:)` returned
/// as it was is not an optional.
func isSameType(_ a: Any, _ b: Any) -> Bool {
    ObjectIdentifier(type(of: a)) == ObjectIdentifier(type(of: b))
}
