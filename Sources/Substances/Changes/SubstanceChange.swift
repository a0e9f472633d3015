/// One changed key of a commit: what a reaction's `on(key)` closure receives.
///
/// ```swift
/// reaction.on(AppState.prop.counter) { change in
///     let old: Int? = change.oldValue()
///     let new: Int? = change.newValue()
///     print("counter: \(old ?? 0) -> \(new ?? 0)")
/// }
/// ```
///
/// Like the reaction it comes from, it is not `Sendable`: read its values where the handler runs,
/// and hand those on.
public struct SubstanceChange {
    let changes: SubstanceChanges
    let slot: Int

    @usableFromInline
    package init(changes: SubstanceChanges, slot: Int) {
        self.changes = changes
        self.slot = slot
    }

    /// The dotted key that changed.
    public func key() -> String { changes.key(at: slot) }

    /// The value before the commit, as `T` (inferred from the context), or nil when it was nil
    /// or is not a `T`.
    public func oldValue<T>() -> T? { changes.oldValue(at: slot) as? T }

    /// The value after the commit, as `T` (inferred from the context).
    public func newValue<T>() -> T? { changes.newValue(at: slot) as? T }

    /// The value before the commit, untyped.
    public func oldValue() -> Any? { changes.oldValue(at: slot) }

    /// The value after the commit, untyped.
    public func newValue() -> Any? { changes.newValue(at: slot) }

    /// The substance that changed.
    public func substance() -> any AnySubstance { changes.substance }
}
