import FluxBus
import Substances

/// What a reactor's handler receives after a commit of one of its substances.
///
/// ```swift
/// reactor.handler = { owner, reaction in
///     reaction.on(AppState.prop.counter) { change in print(change.newValue() as Int? ?? 0) }
///     reaction.on("info.nest.foo") { change in
///         // ...
///     }
///     reaction.at(otherSubstance)?.on("title") { change in
///         // ...
///     }
///     reaction.onLock?.release()
/// }
/// ```
///
/// A reaction lives where its handler runs: it is not `Sendable`, so the compiler keeps it (and the
/// changes it reads) inside the handler. Take out what you need later, on another thread: the
/// values (`change.newValue()`), or the lock to release when async work is done:
///
/// ```swift
/// reaction.on(AppState.prop.asyncResult) { change in
///     let lock = reaction.onLock
///     DispatchQueue.main.asyncAfter(deadline: .now() + 2) { lock?.release() }
/// }
/// ```
public struct FlaskReaction {
    /// The changes, as the reaction reads them (on the bus they may be refilled for a later commit
    /// once nobody holds them; see `SubstanceChanges`).
    @usableFromInline let changeSet: SubstanceChanges
    /// The lock dispatched with an exclusive mix, handed to the handler to release when its work is
    /// done (async flux).
    ///
    /// Reading it takes the lock over: from then on the handler (or whoever it gives the lock to)
    /// must release it, and the bus waits. A handler that never reads it (a reaction to other
    /// keys, a reactor's `keys` not matching) leaves the lock to the bus, which releases it once
    /// the mix has run. A reaction sent off the bus (to the main actor, to another actor) holds
    /// the lock from when it is sent until its handler has run, then lets it go unless the handler
    /// read this property.
    public var onLock: FluxLock? {
        if let carriedLock { carriedLock.claim(by: claimant) }
        return carriedLock
    }
    /// The lock the reaction carries (see ``onLock``).
    @usableFromInline let carriedLock: FluxLock?
    /// Who claims the lock by reading ``onLock``: the reactor, so that one reactor reading it twice
    /// is one claim and two reactors are two (see `FluxLock.release()`). An identifier rather than
    /// an object made for the purpose: the reaction stays small enough to be passed in registers.
    @usableFromInline let claimant: ObjectIdentifier
    /// For a reactor over several substances, the keys of all their states: a key this commit's
    /// state lacks may be another's, and only a key none has is reported. ``StateKeyDomain/none`` for
    /// one substance.
    @usableFromInline let keyDomain: StateKeyDomain

    /// A reaction for a handler about to be called (on the bus, or sent to where it runs). Only a
    /// handler takes its lock over (by reading ``onLock``, or when the reaction is sent off the
    /// bus), so a commit whose only observers are tools (a history, a probe, a stream, an
    /// observable view, a journal's record), a reactor whose owner is gone, or a handler that does
    /// not ask for the lock leaves it to the bus, which releases it.
    @usableFromInline
    init(
        changes: SubstanceChanges, onLock: FluxLock?, keyDomain: StateKeyDomain = .none,
        claimant: ObjectIdentifier
    ) {
        self.changeSet = changes
        self.carriedLock = onLock
        self.keyDomain = keyDomain
        self.claimant = claimant
    }

    /// Withdraws the tentative claim a reaction sent off the bus made on its lock, once its handler
    /// ran or will not: unless the handler read ``onLock`` (then the handler releases it).
    func withdrawTentativeLockClaim() {
        carriedLock?.withdrawTentativeClaim(of: claimant)
    }

    /// The changes of the commit, to keep or to hand to another thread.
    public var changes: SubstanceChanges {
        // Whoever asks may keep them beyond the handler: they are never refilled from now on.
        changeSet.markEscaped()
        return changeSet
    }

    /// The substance that changed.
    public var substance: any AnySubstance { changeSet.substance }

    /// The commit's record: what changed, which mix did it and where it was dispatched from, its
    /// serial. Reading it takes nothing over (the lock is ``onLock``'s), and its changes stay
    /// where the reaction is: take ``changes`` to keep them.
    ///
    /// ```swift
    /// reactor.handler = { _, reaction in
    ///     print("\(reaction.commit.mix) from \(reaction.commit.origin.map { "\($0)" } ?? "?")")
    /// }
    /// ```
    public var commit: Commit { Commit(changes: changeSet, lock: carriedLock) }

    /// Calls `body` if `key` (a dotted key) changed. A key the state's type can never have is
    /// reported (`unknown-key`), with the caller's file and line, once per reactor and key; for a
    /// reactor over several substances, a key that none of their states has. A key below an
    /// optional (`"user.name"` with `var user: User?`) is a key the state can have: it changes when
    /// the optional appears (old value nil), disappears (new value nil), or its value changes.
    ///
    /// - Parameters:
    ///   - key: the dotted key.
    ///   - fileID: where it is called, for the report of an unknown key; leave the default.
    ///   - line: where it is called; leave the default.
    ///   - body: called with the change when the key changed.
    @inlinable
    public func on(
        _ key: String, fileID: StaticString = #fileID, line: UInt = #line, _ body: (SubstanceChange) -> Void
    ) {
        switch changeSet.lookUp(key) {
        case .changed(let slot):
            body(SubstanceChange(changes: changeSet, slot: slot))
        case .unchanged:
            return
        case .notAnEntry:
            onKeyByString(key, fileID: fileID, line: line, body)
        }
    }

    @usableFromInline
    func onKeyByString(_ key: String, fileID: StaticString, line: UInt, _ body: (SubstanceChange) -> Void) {
        if let change = changeSet.change(key) {
            body(change)
        } else {
            let substance = changeSet.substance
            if !substance.isValid(key: key), !keyDomain.isValid(key: key),
                UnknownKeyReports.isFirst(of: key, by: claimant)
            {
                substance.bus.report(
                    .unknownKey,
                    "reaction.on(\"\(key)\") at \(fileID):\(line): \(substance.stateTypeName) has no key \"\(key)\" "
                        + "(substance \(substance.nameInReports))"
                )
            }
        }
    }

    /// Calls `body` if the key of `prop` changed.
    public func on(
        _ prop: some StateProp, fileID: StaticString = #fileID, line: UInt = #line, _ body: (SubstanceChange) -> Void
    ) {
        on(prop.key, fileID: fileID, line: line, body)
    }

    /// Calls `body` with the typed old and new values if the property at `keyPath` changed.
    /// Nothing happens for a substance of another state type.
    public func on<S: State, Value: Equatable & Sendable>(
        _ keyPath: KeyPath<S, Value>, _ body: (TypedChange<Value>) -> Void
    ) {
        if let change = changeSet.change(keyPath) { body(change) }
    }

    /// This reaction if it comes from `substance`, else nil: to tell a reactor's substances apart.
    public func at(_ substance: any AnySubstance) -> FlaskReaction? {
        changeSet.substanceIdentity == ObjectIdentifier(substance) ? self : nil
    }

    /// Whether anything observable changed (always true for a delivered reaction).
    public func changed() -> Bool { !changeSet.isEmpty }

    /// Whether `key` changed.
    public func changed(_ key: String) -> Bool { changeSet.contains(key) }

    /// The changed keys, parents included.
    public var keys: [String] { changeSet.keys }
}
