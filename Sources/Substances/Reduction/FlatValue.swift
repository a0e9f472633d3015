import FlaskLocking

/// A Codable value flattened to a tree of plain values: what the change reduction compares when it
/// cannot compare a property's memory, and what ``FlaskDictRef`` stores.
///
/// The one reference it can hold (`ref`, from a ``FlaskRef``) is only ever compared by identity
/// and handed back to the user as it was given: it crosses threads as an `UncheckedSendable`. A
/// ``FlaskRef`` holds its object as this value too, so that the crossing is made in this file alone.
///
/// A tool that writes changes out (a journal, a diff printer) meets it in
/// ``ChangedValue/flat(_:)``; ``init(encoding:)`` flattens a value the same way.
public enum FlatValue: Equatable, Sendable {
    /// Nil, or an encoded null.
    case null
    /// A Boolean.
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer too large for `Int64`'s positive range, or encoded as unsigned.
    case uint(UInt64)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// An object held by a ``FlaskRef``, compared by identity (see ``referencedObject``).
    case ref(UncheckedSendable<AnyObject>)
    /// A keyed container: a struct's properties, a dictionary's entries.
    case keyed([String: FlatValue])
    /// An unkeyed container: an array's elements.
    case unkeyed([FlatValue])

    /// `value` flattened through its own `encode(to:)`: custom coding keys honoured, a
    /// ``FlaskRef``'s object kept by identity, the `_`-prefixed properties of structs left out (a
    /// dictionary's keys are data, all kept).
    public init(encoding value: some Encodable) {
        self = FlatEncoder.flatten(value)
    }

    /// A reference to `object`, of which only the identity is used (see above): the one place the
    /// `UncheckedSendable` is made, so that no other file relies on it.
    static func reference(to object: AnyObject) -> FlatValue {
        .ref(UncheckedSendable(object))
    }

    /// The object of a ``ref(_:)``; nil for any other value.
    public var referencedObject: AnyObject? {
        if case .ref(let object) = self { object.value } else { nil }
    }

    /// Whether two flattened values are the same: numbers by value (an `int` and a `uint` of the
    /// same number are equal; a NaN is the same as a NaN of the same bits, as the layout path
    /// compares them), objects by identity.
    public static func == (lhs: FlatValue, rhs: FlatValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.uint(let a), .uint(let b)): a == b
        case (.int(let a), .uint(let b)), (.uint(let b), .int(let a)): a >= 0 && UInt64(a) == b
        // The same bits, or `==`, as the layout path compares: a NaN kept as it was is no change
        // (compared by `==` alone, it changed at every commit on the Codable path).
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern || a == b
        case (.string(let a), .string(let b)): a == b
        case (.ref(let a), .ref(let b)): a.value === b.value
        case (.keyed(let a), .keyed(let b)): a == b
        case (.unkeyed(let a), .unkeyed(let b)): a == b
        default: false
        }
    }

    /// The value as a user reads it from a change: `Int`, `Double`, `Bool`, `String`, the object,
    /// `[String: Any]`, `[Any]`, or nil.
    var anyValue: Any? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .int(let value): Int(exactly: value) ?? value
        case .uint(let value): UInt(exactly: value) ?? value
        case .double(let value): value
        case .string(let value): value
        case .ref(let object): object.value
        case .keyed(let dictionary): dictionary.compactMapValues { $0.anyValue }
        case .unkeyed(let array): array.map { $0.anyValue as Any }
        }
    }

    /// The child at a dotted path below this value, if any.
    func child(at path: ArraySlice<String>) -> FlatValue? {
        guard let first = path.first else { return self }
        guard case .keyed(let dictionary) = self, let next = dictionary[first] else { return nil }
        return next.child(at: path.dropFirst())
    }

    /// Appends to `changes` every dotted key below `prefix` whose value differs between `old` and
    /// `new`, parents included. A key present on one side only changes from or to nil. (The
    /// `_`-prefixed properties of structs were left out when the values were flattened; a
    /// dictionary's `_` keys are data, compared like any other.)
    /// Whether it is a dictionary.
    var isKeyed: Bool {
        if case .keyed = self { true } else { false }
    }

    static func diff(
        _ old: FlatValue?,
        _ new: FlatValue?,
        prefix: String,
        into changes: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) -> Bool {
        // Two dictionaries are compared key by key below, once; anything else as a whole here.
        if let old, let new, !old.isKeyed || !new.isKeyed, old == new { return false }
        var oldChildren: [String: FlatValue] = [:]
        var newChildren: [String: FlatValue] = [:]
        if case .keyed(let dictionary)? = old { oldChildren = dictionary }
        if case .keyed(let dictionary)? = new { newChildren = dictionary }
        if old == nil && new == nil { return false }
        var childChanged = false
        if !oldChildren.isEmpty || !newChildren.isEmpty {
            // Only the keys whose values differ are visited (and sorted, and named): a large
            // dictionary with one key changed costs a lookup per key, not a path per key.
            var keys: [String] = []
            for (key, value) in newChildren where oldChildren[key] != value { keys.append(key) }
            for key in oldChildren.keys where newChildren[key] == nil { keys.append(key) }
            keys.sort()
            for key in keys {
                // A key with a dot is escaped (`a\.b`): it never reads as the nested path `a.b`.
                let component = DottedKey.escape(key)
                let path = prefix.isEmpty ? component : prefix + "." + component
                if diff(oldChildren[key], newChildren[key], prefix: path, into: &changes) {
                    childChanged = true
                }
            }
        }
        let bothKeyed: Bool
        if case .keyed? = old, case .keyed? = new { bothKeyed = true } else { bothKeyed = false }
        if bothKeyed && !childChanged { return false }
        if !prefix.isEmpty { changes.append((prefix, old, new)) }
        return true
    }
}
