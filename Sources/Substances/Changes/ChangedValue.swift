/// A changed key's value before or after a commit, as a tool that records changes (a journal, a
/// diff printer) reads it through `SubstanceChanges.changedValues(at:)`: numbers, booleans and
/// strings as what they are, read without a cast (how is chosen once per property type); any
/// other value as itself.
public enum ChangedValue {
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A Boolean.
    case bool(Bool)
    /// A string.
    case string(String)
    /// Any other value (an optional that is nil: nil).
    case other(Any?)
    /// A value found by flattening the state (below a dictionary, an expandable property), as it
    /// was flattened: its structure kept for a tool that writes it out.
    case flat(FlatValue)
    /// No value: the key did not exist (a dictionary's entry not there yet, or removed; a key below
    /// an optional that is nil).
    case absent

    /// Whether there is no value here, or a nil one: a key below it can have none either.
    public var isNilOrAbsent: Bool {
        switch self {
        case .absent: true
        case .other(let value): value.flatMap(unwrappingOptionals) == nil
        case .flat(let value): value == .null
        default: false
        }
    }
}
