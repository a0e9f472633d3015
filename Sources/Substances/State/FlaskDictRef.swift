import Foundation

/// A state property holding a dictionary whose nested keys can be observed with dotted keys.
///
/// ```swift
/// struct AppState: State {
///     var info: FlaskDictRef?
/// }
/// // in a mixer:
/// substance.prop.info = FlaskDictRef(["foo": "bar", "nest": ["data": "some"]])
/// // in a reactor:
/// reaction.on("info.nest.data") { change in print(change.newValue() as String? ?? "nil") }
/// ```
///
/// Values may be strings, numbers, booleans, arrays, nested dictionaries, `Flask.Nil` or `NSNull`
/// (kept as an explicit nil) and objects (compared by identity, archived as nil). A key that
/// disappears changes to nil. The dictionary round-trips through the archive with its nested keys.
///
/// A key that contains a dot (`"a.b"`) is written escaped in a dotted key: `info.a\.b`
/// (``escapedKey(_:)``), so that it is never confused with the nested path `info.a.b`.
public final class FlaskDictRef: Codable, Sendable, Equatable, CustomStringConvertible {
    let storage: [String: FlatValue]

    /// Wraps a Swift dictionary.
    public init(_ dictionary: [String: Any]) {
        self.storage = dictionary.compactMapValues(FlaskDictRef.flatten)
    }

    /// Wraps an `NSDictionary` (string keys; other keys are ignored).
    public convenience init(_ dictionary: NSDictionary) {
        var swift: [String: Any] = [:]
        for (key, value) in dictionary {
            if let key = key as? String { swift[key] = value }
        }
        self.init(swift)
    }

    init(storage: [String: FlatValue]) {
        self.storage = storage
    }

    /// The dictionary, with explicit nils removed.
    public var dictionary: [String: Any] { storage.compactMapValues(\.anyValue) }

    /// The value at a dotted key (`"nest.data"`), or nil. A key that contains a dot is written
    /// with the dot escaped (``escapedKey(_:)``).
    public subscript(keyPath: String) -> Any? {
        let path = DottedKey.components(of: keyPath)
        guard let first = path.first, let top = storage[first] else { return nil }
        return top.child(at: path.dropFirst())?.anyValue
    }

    /// A copy with `key` (a top-level key) set to `value`, or removed when `value` is nil.
    ///
    /// Costs in proportion to the change, not to the dictionary: only the new value is converted,
    /// and the rest is shared with this one until either is written. Prefer it to building a new
    /// `FlaskDictRef` from a whole dictionary to change one key of a large one, which converts
    /// every key again.
    ///
    /// ```swift
    /// substance.prop.info = substance.prop.info?.updating("foo", to: "baz")
    /// ```
    public func updating(_ key: String, to value: Any?) -> FlaskDictRef {
        var storage = self.storage
        if let value, let flat = FlaskDictRef.flatten(value) {
            storage[key] = flat
        } else {
            storage[key] = nil
        }
        return FlaskDictRef(storage: storage)
    }

    /// A dictionary key as a dotted key names it: a dot in it is escaped by a backslash, and a
    /// backslash doubled, so that `"a.b"` (one key) is `a\.b` and never the nested path `a` → `b`.
    ///
    /// ```swift
    /// reaction.on("info." + FlaskDictRef.escapedKey("a.b")) { change in   // "info.a\\.b"
    ///     // ...
    /// }
    /// ```
    public static func escapedKey(_ key: String) -> String {
        DottedKey.escape(key)
    }

    /// Whether the two dictionaries hold the same keys and values.
    public static func == (lhs: FlaskDictRef, rhs: FlaskDictRef) -> Bool {
        lhs === rhs || lhs.storage == rhs.storage
    }

    public var description: String { "FlaskDictRef(\(dictionary))" }

    // MARK: Codable, as a JSON object

    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        self.storage = try FlaskDictRef.decodeKeyed(container)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try FlaskDictRef.encodeKeyed(storage, into: &container)
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    private static func encodeKeyed(_ values: [String: FlatValue], into container: inout KeyedEncodingContainer<AnyKey>)
        throws
    {
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            let codingKey = AnyKey(key)
            switch value {
            case .null, .ref: try container.encodeNil(forKey: codingKey)
            case .bool(let v): try container.encode(v, forKey: codingKey)
            case .int(let v): try container.encode(v, forKey: codingKey)
            case .uint(let v): try container.encode(v, forKey: codingKey)
            case .double(let v): try container.encode(v, forKey: codingKey)
            case .string(let v): try container.encode(v, forKey: codingKey)
            case .keyed(let nested):
                var child = container.nestedContainer(keyedBy: AnyKey.self, forKey: codingKey)
                try encodeKeyed(nested, into: &child)
            case .unkeyed(let items):
                var child = container.nestedUnkeyedContainer(forKey: codingKey)
                try encodeUnkeyed(items, into: &child)
            }
        }
    }

    private static func encodeUnkeyed(_ items: [FlatValue], into container: inout any UnkeyedEncodingContainer) throws {
        for value in items {
            switch value {
            case .null, .ref: try container.encodeNil()
            case .bool(let v): try container.encode(v)
            case .int(let v): try container.encode(v)
            case .uint(let v): try container.encode(v)
            case .double(let v): try container.encode(v)
            case .string(let v): try container.encode(v)
            case .keyed(let nested):
                var child = container.nestedContainer(keyedBy: AnyKey.self)
                try encodeKeyed(nested, into: &child)
            case .unkeyed(let nested):
                var child = container.nestedUnkeyedContainer()
                try encodeUnkeyed(nested, into: &child)
            }
        }
    }

    private static func decodeKeyed(_ container: KeyedDecodingContainer<AnyKey>) throws -> [String: FlatValue] {
        var result: [String: FlatValue] = [:]
        for key in container.allKeys {
            if try container.decodeNil(forKey: key) {
                result[key.stringValue] = .null
            } else if let nested = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: key) {
                result[key.stringValue] = .keyed(try decodeKeyed(nested))
            } else if var nested = try? container.nestedUnkeyedContainer(forKey: key) {
                result[key.stringValue] = .unkeyed(try decodeUnkeyed(&nested))
            } else if let v = try? container.decode(Bool.self, forKey: key) {
                result[key.stringValue] = .bool(v)
            } else if let v = try? container.decode(Int64.self, forKey: key) {
                result[key.stringValue] = .int(v)
            } else if let v = try? container.decode(Double.self, forKey: key) {
                result[key.stringValue] = .double(v)
            } else {
                result[key.stringValue] = .string(try container.decode(String.self, forKey: key))
            }
        }
        return result
    }

    private static func decodeUnkeyed(_ container: inout any UnkeyedDecodingContainer) throws -> [FlatValue] {
        var result: [FlatValue] = []
        while !container.isAtEnd {
            if try container.decodeNil() {
                result.append(.null)
            } else if let nested = try? container.nestedContainer(keyedBy: AnyKey.self) {
                result.append(.keyed(try decodeKeyed(nested)))
            } else if var nested = try? container.nestedUnkeyedContainer() {
                result.append(.unkeyed(try decodeUnkeyed(&nested)))
            } else if let v = try? container.decode(Bool.self) {
                result.append(.bool(v))
            } else if let v = try? container.decode(Int64.self) {
                result.append(.int(v))
            } else if let v = try? container.decode(Double.self) {
                result.append(.double(v))
            } else {
                result.append(.string(try container.decode(String.self)))
            }
        }
        return result
    }

    // MARK: Converting user values

    /// `value` as a dictionary reference stores it: a number, Boolean, string or null as itself (a
    /// Foundation number as what it holds: an `NSNumber` of a Boolean is `bool`, never `1`), an
    /// array or a `[String: Any]` of those as a container; nil for any other value.
    public static func flatten(_ value: Any) -> FlatValue? {
        if let bool = value as? Bool, type(of: value) == Bool.self { return .bool(bool) }
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type { return flatten(number) }
        switch value {
        case is FlaskNull, is NSNull: return .null
        case let v as Int: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as Int32: return .int(Int64(v))
        case let v as UInt: return .uint(UInt64(v))
        case let v as UInt64: return .uint(v)
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as String: return .string(v)
        case let v as FlaskDictRef: return .keyed(v.storage)
        case let v as [String: Any]: return .keyed(v.compactMapValues(flatten))
        case let v as NSDictionary: return .keyed(FlaskDictRef(v).storage)
        case let v as [Any]: return .unkeyed(v.map { flatten($0) ?? .null })
        case let v as NSArray: return .unkeyed(v.map { flatten($0) ?? .null })
        case let v as NSString: return .string(String(describing: v))
        default:
            if let optional = value as? any OptionalProtocol {
                guard let wrapped = optional.wrapped else { return .null }
                return flatten(wrapped)
            }
            if let encodable = value as? any Encodable { return FlatEncoder.flatten(encodable) }
            return .reference(to: value as AnyObject)
        }
    }

    private static func flatten(_ number: NSNumber) -> FlatValue {
        switch String(cString: number.objCType) {
        case "c", "B": .bool(number.boolValue)
        case "f", "d": .double(number.doubleValue)
        case "Q", "L", "I", "S", "C": .uint(number.uint64Value)
        default: .int(number.int64Value)
        }
    }
}

/// An explicit nil inside a ``FlaskDictRef`` (the seed's `Flask.Nil`).
public struct FlaskNull: Sendable, Hashable, CustomStringConvertible {
    /// The explicit nil (`Flask.Nil`).
    public init() {}
    public var description: String { "Flask.Nil" }
}
