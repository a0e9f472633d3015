import FlaskLocking
import FluxBus
import Observation

/// An `Observable` view of a substance's committed state, for SwiftUI and `withObservationTracking`.
///
/// Read properties through it (`view.counter`, by dynamic member): observation tracks exactly the
/// properties read, and after a commit only those that changed notify. Updates arrive on the main
/// actor, in commit order; the bus never waits for them. Commits that come faster than the main
/// actor runs arrive as one update, to the newest state (observation notifies once for them
/// anyway).
///
/// ```swift
/// @MainActor func counterView(of substance: Substance<CounterState>) -> Int {
///     let view = substance.observable()
///     return view.counter
/// }
/// ```
@MainActor
@dynamicMemberLookup
public final class SubstanceObservation<S: State>: Observable {
    /// The committed state, as of the last update delivered to the main actor.
    public private(set) var state: S
    private let registrar = ObservationRegistrar()
    /// The properties read so far, each with how to tell whether it changed and how to notify.
    private var tracked: [AnyKeyPath: TrackedProperty] = [:]
    /// Unbinds the view from its substance; called when the view goes away.
    private let unbind: @Sendable () -> Void

    private struct TrackedProperty {
        let changed: (S, S) -> Bool
        let willSet: (SubstanceObservation<S>) -> Void
        let didSet: (SubstanceObservation<S>) -> Void
    }

    init(substance: Substance<S>) {
        self.state = substance.state
        let feeder = ObservationFeeder<S>(initial: state)
        self.unbind = { [weak substance] in substance?.unbind(feeder) }
        feeder.view = self
        substance.bind(feeder)
    }

    deinit {
        unbind()
    }

    /// The value of a property of the state, tracked by observation.
    public subscript<Value: Equatable>(dynamicMember keyPath: KeyPath<S, Value>) -> Value {
        let selfKeyPath = \SubstanceObservation<S>.[dynamicMember: keyPath]
        if tracked[keyPath] == nil {
            tracked[keyPath] = TrackedProperty(
                changed: { $0[keyPath: keyPath] != $1[keyPath: keyPath] },
                willSet: { $0.registrar.willSet($0, keyPath: selfKeyPath) },
                didSet: { $0.registrar.didSet($0, keyPath: selfKeyPath) })
        }
        registrar.access(self, keyPath: selfKeyPath)
        return state[keyPath: keyPath]
    }

    fileprivate func update(to new: S) {
        let changed = tracked.values.filter { $0.changed(state, new) }
        for property in changed { property.willSet(self) }
        state = new
        for property in changed { property.didSet(self) }
    }
}

extension Substance {
    /// An `Observable` view of this substance's state, updated on the main actor.
    @MainActor
    public func observable() -> SubstanceObservation<S> {
        SubstanceObservation(substance: self)
    }
}

/// What feeds a view: called on the bus with each commit, it keeps the newest committed state
/// until the main actor takes it. Commits that come faster than the main actor runs coalesce: one
/// update carries the newest state, and observation would have notified once for them anyway.
///
/// A class generic over the state, rather than a closure: its methods find the state's type in
/// the instance, where a closure generic over it would look up `Optional<S>` and
/// `StateChanges<S>` at run time, twice per commit.
///
/// `view` is set once on the main actor before the feeder is bound, and read only on the main
/// actor.
final class ObservationFeeder<S: State>: ChangesStayOnBus, Sendable {
    @MainActor weak var view: SubstanceObservation<S>?
    /// The newest state not delivered yet, and whether there is one.
    private let pending: LockedValue<(newest: S, isPending: Bool)>

    init(initial: S) {
        pending = LockedValue((initial, false))
    }

    /// Keeps the commit's new state; sends the main actor to take it, unless it is already on its
    /// way. Only the state is copied out: the changes stay on the bus.
    func didCommit(_ commit: Commit) {
        // A commit of a Substance<S>.
        let changes = commit.changes.ofState(S.self)
        let wasPending = pending.withLock { pending in
            pending.newest = changes.new
            defer { pending.isPending = true }
            return pending.isPending
        }
        if !wasPending { MainActorMailbox.shared.send { self.deliver() } }
    }

    @MainActor private func deliver() {
        let state = pending.withLock { pending in
            pending.isPending = false
            return pending.newest
        }
        view?.update(to: state)
    }
}
