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
    let validator: KeyValidator

    /// The substance that changed.
    public var substance: any AnySubstance { changes.substance }

    /// Calls `body` if `key` (a dotted key) changed. A key the state does not have is reported.
    public func on(_ key: String, _ body: (SubstanceChange) -> Void) {
        if let entry = validator.resolvedEntry(key, in: changes) {
            if let change = changes.change(entry: entry) { body(change) }
        } else if let change = changes.change(key) {
            body(change)
        } else {
            validator.check(key, in: changes.substance)
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

/// Remembers the keys a reactor's handler asks for: each key is resolved to its entry in the state's
/// reduction plan once, so later reactions compare integers rather than strings, and a key the state
/// does not have is reported once.
///
/// `@unchecked Sendable`: the caches are read and written only on the reactor's bus (checked with
/// `bus.isCurrent`), where items run one at a time; calls from elsewhere skip them.
final class KeyValidator: @unchecked Sendable {
    private struct Resolved {
        let plan: ObjectIdentifier
        let key: String
        let entry: Int32
    }

    private let bus: Flux
    @exclusivity(unchecked) private var resolved: [Resolved] = []
    @exclusivity(unchecked) private var known: [(substance: ObjectIdentifier, key: String)] = []

    init(bus: Flux) {
        self.bus = bus
    }

    /// The plan entry of `key` for these changes, resolving and remembering it on first use; nil
    /// when the key is not a plan entry (a dictionary sub-key, the Codable path, an unknown key).
    func resolvedEntry(_ key: String, in changes: SubstanceChanges) -> Int32? {
        guard let plan = changes.planIdentity, bus.isCurrent else { return nil }
        let found: Int32? = resolved.withUnsafeBufferPointer { resolved in
            for index in resolved.indices where resolved[index].plan == plan && resolved[index].key == key {
                return resolved[index].entry
            }
            return nil
        }
        if let found { return found }
        guard let entry = changes.entry(forKey: key) else { return nil }
        resolved.append(Resolved(plan: plan, key: key, entry: entry))
        return entry
    }

    func check(_ key: String, in substance: any AnySubstance) {
        let id = ObjectIdentifier(substance)
        let onBus = bus.isCurrent
        if onBus, known.contains(where: { $0.substance == id && $0.key == key }) { return }
        if substance.isValid(key: key) {
            if onBus { known.append((id, key)) }
        } else {
            substance.bus.report(
                .unknownKey,
                "reaction.on(\"\(key)\"): \(substance.stateTypeName) has no key \"\(key)\" (substance \(substance.name()))"
            )
        }
    }
}
