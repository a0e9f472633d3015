import FluxBus
import Substances

/// What a reactor's handler receives after a commit of one of its substances.
///
/// ```swift
/// reactor.handler = { owner, reaction in
///     reaction.on(AppState.prop.counter) { change in print(change.newValue() as Int?) }
///     reaction.on("info.nest.foo") { change in ... }
///     reaction.at(otherSubstance)?.on("title") { change in ... }
///     reaction.onLock?.release()
/// }
/// ```
///
/// A reaction may be kept and used later, on any thread (to release its lock, say).
public struct FlaskReaction: Sendable {
    /// The changes of the commit.
    public let changes: SubstanceChanges
    /// The lock dispatched with an exclusive mix, handed to the handler to release when its work is
    /// done (async flux).
    public let onLock: FluxLock?

    /// The substance that changed.
    public var substance: any AnySubstance { changes.substance }

    /// Calls `body` if `key` (a dotted key) changed. A key the state does not have is reported.
    @inlinable
    public func on(_ key: String, _ body: (SubstanceChange) -> Void) {
        switch changes.lookUp(key) {
        case .changed(let slot):
            body(SubstanceChange(changes: changes, slot: slot))
        case .unchanged:
            return
        case .notAnEntry:
            onKeyByString(key, body)
        }
    }

    @usableFromInline
    func onKeyByString(_ key: String, _ body: (SubstanceChange) -> Void) {
        if let change = changes.change(key) {
            body(change)
        } else {
            let substance = changes.substance
            if !substance.isValid(key: key) {
                substance.bus.report(
                    .unknownKey,
                    "reaction.on(\"\(key)\"): \(substance.stateTypeName) has no key \"\(key)\" (substance \(substance.name()))"
                )
            }
        }
    }

    /// Calls `body` if the key of `prop` changed.
    public func on(_ prop: some StateProp, _ body: (SubstanceChange) -> Void) {
        on(prop.key, body)
    }

    /// Calls `body` with the typed old and new values if the property at `keyPath` changed.
    /// Nothing happens for a substance of another state type.
    public func on<S: State, Value: Equatable & Sendable>(
        _ keyPath: KeyPath<S, Value>, _ body: (TypedChange<Value>) -> Void
    ) {
        if let change = changes.change(keyPath) { body(change) }
    }

    /// This reaction if it comes from `substance`, else nil: to tell a reactor's substances apart.
    public func at(_ substance: any AnySubstance) -> FlaskReaction? {
        changes.substanceIdentity == ObjectIdentifier(substance) ? self : nil
    }

    /// Whether anything observable changed (always true for a delivered reaction).
    public func changed() -> Bool { !changes.isEmpty }

    /// Whether `key` changed.
    public func changed(_ key: String) -> Bool { changes.contains(key) }

    /// The changed keys, parents included.
    public var keys: [String] { changes.keys }
}
