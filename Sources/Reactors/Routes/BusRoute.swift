import FlaskLocking
import FluxBus
import Substances

/// A reactor's route on the bus: its ``Reactor/handler`` and its declared reactions, run right
/// after each commit, before the next work item, with the owner the bus holds (see
/// ``RouteOwnerHolds``). Bound to the reactor's substances on one bus in the reactor's place, so a
/// substance calls it directly; made from the reactor's settings, and replaced whole when they
/// change. Scenarios S3 (a hundred handlers) and S3d (declared reactions) measure it.
final class BusRoute<Owner: AnyObject>: SubstanceObserver, ChangesStayOnBus {
    /// Kept alive by the route, as a bound observer keeps what it observes for: the reactor lives
    /// while a substance delivers to it.
    let reactor: Reactor<Owner>
    private let bus: Flux
    private let holds: RouteOwnerHolds
    /// The handler in a box, called borrowed through ``unretainedHandler`` (a closure, or a box,
    /// bound from a property is retained and released around its call).
    private let handler: ReactorHandlerBox<Owner>?
    /// The same box, called without a retain: ``handler`` keeps it.
    private let unretainedHandler: Unretained<ReactorHandlerBox<Owner>>?
    private let declared: DeclaredReactions?
    /// The same, read without a retain (``declared`` keeps it).
    private let unretainedDeclared: Unretained<DeclaredReactions>?
    /// The owner as the bus holds it, with the holds' epoch it was held in.
    private let held = HeldOwner()

    init(reactor: Reactor<Owner>, bus: Flux, handler: Reactor<Owner>.Handler?, declared: DeclaredReactions?) {
        self.reactor = reactor
        self.bus = bus
        self.holds = RouteOwnerHolds.of(bus)
        // Not `handler.map(ReactorHandlerBox.init)`: passing the closure through a generic function
        // would wrap it in reabstraction thunks, two calls more per reaction.
        if let handler { self.handler = ReactorHandlerBox(handler) } else { self.handler = nil }
        self.unretainedHandler = self.handler.map { Unretained($0) }
        self.unretainedDeclared = declared.map { Unretained($0) }
        self.declared = declared
    }

    var countsAsReactor: Bool { true }

    func didCommit(_ commit: Commit) {
        // The owner the bus already holds for this batch: one load and one comparison.
        if let owner = holds.owner(in: held) { return react(owner, commit.changes, commit.lock) }
        holdOwnerAndReact(commit.changes, commit.lock)
    }

    /// The owner not held yet in this batch: loaded from its weak reference, once per hold, not
    /// per commit; a reactor whose owner is gone detaches.
    @inline(never)
    private func holdOwnerAndReact(_ changes: SubstanceChanges, _ lock: FluxLock?) {
        guard let owner = reactor.owner else { return reactor.detach() }
        let unretained = Unretained<AnyObject>(owner)
        // The loaded reference becomes the hold, which keeps the owner alive from here on.
        holds.hold(consume owner, in: held, on: bus)
        react(unretained, changes, lock)
    }

    /// Calls the handler with `owner` borrowed; a reactor with declared reactions out of line, so
    /// that the common case calls the handler last and saves no registers around it.
    @inline(__always)
    private func react(_ owner: Unretained<AnyObject>, _ changes: SubstanceChanges, _ lock: FluxLock?) {
        if let declared = unretainedDeclared { return reactDeclaring(declared, owner, changes, lock) }
        owner.withObject { owner in
            // Held as the reactor's owner, an `Owner`.
            unretainedHandler?.withObject {
                $0.call(uncheckedCast(owner, to: Owner.self), reactor.reaction(changes, lock))
            }
        }
    }

    /// Calls the handler, if it wants the commit, then the declared reactions.
    @inline(never)
    private func reactDeclaring(
        _ declared: Unretained<DeclaredReactions>, _ owner: Unretained<AnyObject>, _ changes: SubstanceChanges,
        _ lock: FluxLock?
    ) {
        if let handler = unretainedHandler, declared.withObject({ $0.handlerWants(changes) }) {
            owner.withObject { owner in
                handler.withObject {
                    $0.call(uncheckedCast(owner, to: Owner.self), reactor.reaction(changes, lock))
                }
            }
        }
        declared.withObject { $0.run(owner, changes) }
    }
}
