/// The change of one property read through a typed key path.
public struct TypedChange<Value: Sendable>: Sendable {
    /// The value before the commit.
    public let oldValue: Value
    /// The value after the commit.
    public let newValue: Value
}

extension SubstanceChanges {
    /// The change of the property at `keyPath`, if these are changes of an `S` and it changed.
    ///
    /// Compares the two snapshots directly, so any `Equatable` property works, `_` ones included.
    public func change<S: State, Value: Equatable & Sendable>(_ keyPath: KeyPath<S, Value>) -> TypedChange<Value>? {
        guard let typed = self as? StateChanges<S> else { return nil }
        let old = typed.old[keyPath: keyPath]
        let new = typed.new[keyPath: keyPath]
        return sameValue(old, new) ? nil : TypedChange(oldValue: old, newValue: new)
    }

    /// Whether these are changes of a substance of state type `S`.
    public func isState<S: State>(_ type: S.Type) -> Bool { self is StateChanges<S> }
}
