import FluxBus
import Substances

/// A reactor's route to an actor other than the main actor (a ``FlaskReactor`` attached from that
/// actor): each reaction is handed to the task that runs them there, in commit order. The bus does
/// not wait; the substance marks the changes escaped (the route does not keep them on the bus).
final class ActorRoute<Owner: AnyObject>: SubstanceObserver {
    private let reactor: Reactor<Owner>
    private let delivery: ActorDelivery<Owner>
    /// See `MainActorRoute`'s.
    private let filter: DeclaredReactions?

    init(reactor: Reactor<Owner>, delivery: ActorDelivery<Owner>, filter: DeclaredReactions?) {
        self.reactor = reactor
        self.delivery = delivery
        self.filter = filter
    }

    deinit {
        reactor.routeWentAway()
    }

    var countsAsReactor: Bool { true }

    func didCommit(_ commit: Commit) {
        let (changes, lock) = (commit.changes, commit.lock)
        guard filter?.handlerWants(changes) ?? true else { return }
        delivery.deliver(Hop(reactor: reactor, reaction: reactor.sending(changes, lock)))
    }
}
