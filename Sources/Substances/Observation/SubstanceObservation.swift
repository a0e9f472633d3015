import Dispatch
import FluxBus
import Observation

/// An `Observable` view of a substance's committed state, for SwiftUI and `withObservationTracking`.
///
/// Read properties through it (`view.counter`, by dynamic member): observation tracks exactly the
/// properties read, and after a commit only those that changed notify. Updates arrive on the main
/// actor, in commit order; the bus never waits for them.
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
        let box = WeakViewBox<S>()
        let feeder = CommitClosureObserver { changes in
            guard let new = (changes as? StateChanges<S>)?.new else { return }
            DispatchQueue.main.async {
                MainActor.assumeIsolated { box.view?.update(to: new) }
            }
        }
        self.unbind = { [weak substance] in substance?.unbind(feeder) }
        box.view = self
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

    private func update(to new: S) {
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

/// The view, held weakly by the feeder so that the substance does not keep it alive.
///
/// `@unchecked Sendable`: `view` is set once on the main actor before the box is shared, and read
/// only on the main actor.
final class WeakViewBox<S: State>: @unchecked Sendable {
    weak var view: SubstanceObservation<S>?
}
