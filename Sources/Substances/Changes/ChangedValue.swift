/// A changed key's value before or after a commit, as a tool that records changes (a journal, a
/// diff printer) reads it through `SubstanceChanges.changedValues(at:)`: numbers, booleans and
/// strings as what they are, read without a cast (how is chosen once per property type); any
/// other value as itself.
package enum ChangedValue {
    case int(Int)
    case double(Double)
    case bool(Bool)
    case string(String)
    /// Any other value; nil when the key had no value (it did not exist).
    case other(Any?)
}
