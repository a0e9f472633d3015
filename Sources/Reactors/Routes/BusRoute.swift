import FlaskLocking
import FluxBus
import Substances
import Synchronization

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

    deinit {
        reactor.routeWentAway()
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

// The holds that let a bus route use its owner unretained, in the route's file: the route is the
// one place that reads a held owner, and the holds' epoch is what makes that read safe.

/// The owners of the reactors that a bus's routes delivered to in the work items it is running,
/// kept alive until the bus lets go of them all at once (before a task, after every 128 items, at
/// the end of each batch: see `Flux.wakeWhenLettingGo(_:)`). One per bus, shared by its routes.
///
/// A reactor holds its owner weakly, and a weak reference costs two atomic operations on its side
/// table per use (the weak load, and the release after it). Once held here, a route remembers the
/// owner in a ``HeldOwner`` with the ``epoch`` it was held in, and uses it unretained for as long
/// as the epoch has not changed: one load and one comparison a delivery (scenario S3, a hundred
/// routes a commit). Letting go changes the epoch first, so a remembered owner is never used
/// after it was let go.
///
/// The price is lifetime: an owner whose last other reference goes while the bus holds it is
/// deinitialized a little later, on the bus, when the bus lets go.
final class RouteOwnerHolds: FluxDeferredWake, Sendable {
    /// Changes whenever the held owners are let go: an owner remembered with an older epoch may be
    /// gone. Written and read on the bus only, like ``state``; an atomic (relaxed), so that a
    /// delivery reads it with one load, without the indirection of a `BusConfined` (scenario S3).
    private let epoch = Atomic<UInt64>(1)

    private struct State {
        var owners: [AnyObject] = []
        /// Whether the bus will wake the holds when it lets go.
        var wakeScheduled = false
    }

    private let state: BusConfined<State>

    init(bus: Flux) {
        state = BusConfined(State(), on: bus, "a bus's route owner holds")
    }

    /// The holds of `bus`.
    static func of(_ bus: Flux) -> RouteOwnerHolds {
        bus.clientObject(RouteOwnerHolds.self) { RouteOwnerHolds(bus: bus) }
    }

    /// The owner `held` remembers, if it is still held: it may then be used unretained until the
    /// bus lets go. On the bus only (checked in debug builds).
    @inline(__always)
    func owner(in held: borrowing HeldOwner) -> Unretained<AnyObject>? {
        assert(isOnBus)
        guard held.epoch.load(ordering: .relaxed) == epoch.load(ordering: .relaxed) else { return nil }
        return Unretained(bitPattern: held.owner.load(ordering: .relaxed))
    }

    /// Whether the bus is current (checked by the confined state's access, in debug builds).
    private var isOnBus: Bool {
        _ = state.value
        return true
    }

    /// Keeps `owner` alive until the epoch changes, remembered in `held`. Consumed: the caller's
    /// reference (the one a weak load just made) becomes the hold, rather than a second one taken
    /// and the first released (on an object with weak references, both are the runtime's slow path).
    func hold(_ owner: consuming AnyObject, in held: borrowing HeldOwner, on bus: Flux) {
        held.owner.store(Unretained(owner).bitPattern, ordering: .relaxed)
        held.epoch.store(epoch.load(ordering: .relaxed), ordering: .relaxed)
        state.value.owners.append(owner)
        if !state.value.wakeScheduled {
            state.value.wakeScheduled = true
            bus.wakeWhenLettingGo(self)
        }
    }

    /// Lets go of every held owner (their deinitializers may run now, on the bus). The epoch
    /// changes before anything is released: a deinitializer that reaches a delivery must not find
    /// a remembered owner valid. The list is swapped out first, so that such a delivery may hold
    /// again while this one releases.
    func wake() {
        epoch.store(epoch.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        state.value.wakeScheduled = false
        var released: [AnyObject] = []
        swap(&released, &state.value.owners)
        // Emptied one by one, keeping the buffer: a batch holds an owner or two, and
        // `removeAll(keepingCapacity:)` costs a generic `replaceSubrange` (scenario S1a).
        while released.popLast() != nil {}
        if state.value.owners.isEmpty { state.value.owners = released }
    }
}

/// An owner as a route remembers it once the bus's holds keep it (see ``RouteOwnerHolds``): `owner`
/// (an unretained reference's bits) may be used while the holds' epoch is `epoch`, the one it was
/// held in. Two atomics, touched on the bus only (relaxed): kept in place in the route, they are
/// read with two loads a delivery (scenario S3, a hundred routes a commit).
struct HeldOwner: ~Copyable, Sendable {
    let owner = Atomic<UInt>(0)
    /// Zero: nothing held yet (epochs start at one).
    let epoch = Atomic<UInt64>(0)
}
