import FlaskLocking
import Foundation

/// Which coding key each stored property of a type is encoded under, where the two differ
/// (`password` encoded as `pw`): what lets a secret key named either way match both
/// (see ``SecretKeys``).
///
/// Learned from the type itself, exactly or not at all: the type is decoded from a probe that hands
/// every key a value of its own (a number, a string, a date never handed out before; a `Bool` by a
/// pattern over a few rounds), and each stored property is matched with the one key whose value it
/// holds afterwards, byte for byte. A property no key's value reached uniquely, or a type whose
/// `init(from:)` refuses the probe's values (an enumeration with raw values, a validation), stays
/// unknown: nothing is guessed from declaration order.
enum CodingKeyAliases {
    /// One property and the key it is encoded under, when they differ.
    struct Alias: Hashable, Sendable {
        let property: String
        let key: String
    }

    /// What was learned of a type and the types below it.
    struct Learned: Sendable {
        /// The aliases found.
        var aliases: Set<Alias> = []
        /// Whether some type below could not be probed, or some property of it was not matched:
        /// then a name found in neither spelling may still be one of its keys.
        var incomplete = false
    }

    private static let cache = LockedValue([ObjectIdentifier: Learned]())

    /// The aliases of `type` and of every type its properties hold (through optionals, arrays and
    /// dictionaries), made once per type.
    static func of(_ type: any Any.Type) -> Learned {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        var learned = Learned()
        var visited: Set<ObjectIdentifier> = []
        collect(type, into: &learned, visited: &visited, depth: 0)
        cache.withLock { $0[id] = learned }
        return learned
    }

    private static func collect(
        _ type: any Any.Type, into learned: inout Learned, visited: inout Set<ObjectIdentifier>, depth: Int
    ) {
        let type = elementType(of: type)
        guard depth < 12, visited.insert(ObjectIdentifier(type)).inserted else { return }
        guard let fields = FieldLayout.storedFields(of: type), !fields.isEmpty,
            !(type is any ProbeLeaf.Type)
        else { return }
        if let decodable = type as? any Decodable.Type {
            switch match(decodable, fields: fields) {
            case .some(let (aliases, complete)):
                learned.aliases.formUnion(aliases)
                if !complete { learned.incomplete = true }
            case .none:
                learned.incomplete = true
            }
        }
        for field in fields where field.isProperty {
            collect(field.type, into: &learned, visited: &visited, depth: depth + 1)
        }
    }

    /// The type a value of `type` holds its properties in: an optional's wrapped type, an array's
    /// element, a dictionary's value, repeatedly.
    private static func elementType(of type: any Any.Type) -> any Any.Type {
        var type = type
        for _ in 0..<8 {
            if let optional = type as? any OptionalProtocol.Type {
                type = optional.wrappedType
            } else if let array = type as? any ElementTyped.Type {
                type = array.elementType
            } else if let dictionary = type as? any ProbeDictionary.Type {
                type = dictionary.valueType
            } else {
                break
            }
        }
        return type
    }

    /// Matches `type`'s properties with its keys: the aliases, and whether every encoded property
    /// was matched; nil when the type refuses the probe.
    private static func match(_ type: any Decodable.Type, fields: [StoredField]) -> (Set<Alias>, Bool)? {
        // The candidate keys of each field, narrowed at each round.
        var candidates: [Int: Set<String>] = [:]
        var keyCount = 0
        var round = 0
        repeat {
            guard let (instance, calls) = probe(type, round: round) else { return nil }
            keyCount = calls.count
            for (index, field) in fields.enumerated() {
                let bytes = fieldBytes(of: instance, field: field)
                let matching = Set(
                    calls.filter { $0.type == ObjectIdentifier(field.type) && $0.bytes == bytes }.map(\.key))
                candidates[index] = candidates[index].map { $0.intersection(matching) } ?? matching
            }
            round += 1
        } while (1 << round) <= keyCount + 1 && round < 8
        var aliases: Set<Alias> = []
        var matchedKeys: Set<String> = []
        for (index, field) in fields.enumerated() {
            guard let keys = candidates[index], keys.count == 1, let key = keys.first else { continue }
            matchedKeys.insert(key)
            if key != field.name { aliases.insert(Alias(property: field.name, key: key)) }
        }
        return (aliases, matchedKeys.count == keyCount)
    }

    /// The bytes of `field` in `instance`.
    private static func fieldBytes(of instance: Any, field: StoredField) -> [UInt8] {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        let fieldSize = _openExistential(field.type, do: size)
        func bytes<T>(_ value: T) -> [UInt8] {
            StateMemory.bytes(of: value, from: field.offset, count: fieldSize)
        }
        return _openExistential(instance, do: bytes)
    }

    /// Decodes `type` from a probe (round `round`): the instance, and the keys its top container
    /// was asked for with the bytes handed out for each.
    private static func probe(_ type: any Decodable.Type, round: Int) -> (Any, [ProbeCall])? {
        let state = ProbeState(round: round)
        let decoder = ProbeDecoder(state: state, depth: 0, top: true)
        guard let instance = try? type.init(from: decoder) else { return nil }
        return (instance, state.calls)
    }
}

/// A key asked for by the probed type's own container, and the value handed out for it.
struct ProbeCall {
    let key: String
    let type: ObjectIdentifier
    let bytes: [UInt8]
}

/// What the probe decoders of one round share: the values handed out and the calls recorded.
final class ProbeState {
    let round: Int
    var counter = 0
    var calls: [ProbeCall] = []
    /// The position of each key among the top container's, for the `Bool` pattern.
    var topKeys = 0

    init(round: Int) {
        self.round = round
    }

    func next() -> Int {
        counter += 1
        return counter
    }
}

/// A dictionary, seen through its type: what the probe looks through for the types it holds.
protocol ProbeDictionary {
    static var valueType: any Any.Type { get }
}

extension Dictionary: ProbeDictionary {
    static var valueType: any Any.Type { Value.self }
}

/// Types the probe makes itself rather than decode: values Foundation decodes from text that the
/// probe's text is not (a UUID), or that it reads in a shape of its own.
protocol ProbeLeaf {}
extension UUID: ProbeLeaf {}
extension Date: ProbeLeaf {}
extension Data: ProbeLeaf {}
extension URL: ProbeLeaf {}
extension Decimal: ProbeLeaf {}

private struct ProbeDecoder: Decoder {
    let state: ProbeState
    let depth: Int
    /// Whether this decodes the probed type itself (its container's calls are recorded).
    let top: Bool
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ProbeUnkeyed(decoder: self, count: depth < 6 ? 1 : 0)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ProbeSingle(decoder: self)
    }

    /// A value of `T` never handed out before (numbers and strings), or decoded from a probe below.
    func value<T: Decodable>(_ type: T.Type, bit: Bool) throws -> T {
        switch type {
        case is Bool.Type: return bit as! T
        case is String.Type: return "flask.probe.\(state.next())" as! T
        case is Double.Type: return (Double(state.next()) + 0.25) as! T
        case is Float.Type: return (Float(state.next()) + 0.25) as! T
        case is Int.Type: return state.next() as! T
        case is Int64.Type: return Int64(state.next()) as! T
        case is Int32.Type: return Int32(truncatingIfNeeded: state.next()) as! T
        case is Int16.Type: return Int16(truncatingIfNeeded: state.next()) as! T
        case is Int8.Type: return Int8(truncatingIfNeeded: state.next()) as! T
        case is UInt.Type: return UInt(state.next()) as! T
        case is UInt64.Type: return UInt64(state.next()) as! T
        case is UInt32.Type: return UInt32(truncatingIfNeeded: state.next()) as! T
        case is UInt16.Type: return UInt16(truncatingIfNeeded: state.next()) as! T
        case is UInt8.Type: return UInt8(truncatingIfNeeded: state.next()) as! T
        case is UUID.Type: return UUID() as! T
        case is Date.Type: return Date(timeIntervalSince1970: Double(state.next())) as! T
        case is Data.Type: return Data("\(state.next())".utf8) as! T
        case is URL.Type: return URL(string: "flask-probe:\(state.next())")! as! T
        case is Decimal.Type: return Decimal(state.next()) as! T
        default:
            if let cases = type as? any CaseIterable.Type, let first = firstCase(cases) as? T { return first }
            guard depth < 12 else { throw ProbeRefused() }
            return try T(from: ProbeDecoder(state: state, depth: depth + 1, top: false))
        }
    }

    private func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { type.allCases.first }
}

private struct ProbeRefused: Error {}

private struct ProbeKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let state = decoder.state
        let position = decoder.top ? state.topKeys : 0
        if decoder.top { state.topKeys += 1 }
        let value = try decoder.value(type, bit: (position + 1) >> state.round & 1 == 1)
        if decoder.top {
            let bytes = StateMemory.bytes(of: value, from: 0, count: MemoryLayout<T>.size)
            state.calls.append(ProbeCall(key: key.stringValue, type: ObjectIdentifier(T.self), bytes: bytes))
        }
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        // Recorded as the optional the property holds.
        let state = decoder.state
        let position = decoder.top ? state.topKeys : 0
        if decoder.top { state.topKeys += 1 }
        let value: T? = try decoder.value(type, bit: (position + 1) >> state.round & 1 == 1)
        if decoder.top {
            let bytes = StateMemory.bytes(of: value, from: 0, count: MemoryLayout<T?>.size)
            state.calls.append(ProbeCall(key: key.stringValue, type: ObjectIdentifier(T?.self), bytes: bytes))
        }
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        KeyedDecodingContainer(ProbeKeyed<NestedKey>(decoder: below))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        ProbeUnkeyed(decoder: below, count: 0)
    }

    func superDecoder() throws -> any Decoder { below }
    func superDecoder(forKey key: Key) throws -> any Decoder { below }

    private var below: ProbeDecoder { ProbeDecoder(state: decoder.state, depth: decoder.depth + 1, top: false) }
}

private struct ProbeUnkeyed: UnkeyedDecodingContainer {
    let decoder: ProbeDecoder
    var count: Int?
    var currentIndex = 0
    var codingPath: [any CodingKey] { [] }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    init(decoder: ProbeDecoder, count: Int) {
        self.decoder = ProbeDecoder(state: decoder.state, depth: decoder.depth, top: false)
        self.count = count
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw ProbeRefused() }
        currentIndex += 1
        return try decoder.value(type, bit: false)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        currentIndex += 1
        return KeyedDecodingContainer(ProbeKeyed<NestedKey>(decoder: decoder))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        return ProbeUnkeyed(decoder: decoder, count: 0)
    }

    mutating func superDecoder() throws -> any Decoder { decoder }
}

private struct ProbeSingle: SingleValueDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try ProbeDecoder(state: decoder.state, depth: decoder.depth, top: false).value(type, bit: false)
    }
}
