import FlaskLocking
import FluxBus
import Substances
import Synchronization

/// Creates reactors attached to owners, finds and removes them, and disposes of those whose owner
/// has gone.
///
/// ```swift
/// let reactor = ReactorManager.shared.reactor(attachedTo: owner, mixing: [substance])
/// let reactors = ReactorManager.shared.reactors(of: owner)   // [reactor]
/// ReactorManager.shared.detach(from: owner)
/// ```
public final class ReactorManager: Sendable {
    /// The manager the `Flask` facade uses.
    public static let shared = ReactorManager()

    /// The attached reactors, indexed by reactor and by owner, so that finding or detaching the
    /// reactors of one owner costs the same with 10 or 10,000 reactors attached.
    private struct Registry {
        var reactors: [ObjectIdentifier: any AnyReactor] = [:]
        var byOwner: [ObjectIdentifier: [ObjectIdentifier]] = [:]
        var ownerOfReactor: [ObjectIdentifier: ObjectIdentifier] = [:]
        /// The bus of each reactor (its substances'), for what is done to one bus's reactors.
        var busOfReactor: [ObjectIdentifier: ObjectIdentifier] = [:]
        /// How many reactors attaching one more sweeps at (see ``ReactorManager/makeReactor``).
        var sweepAt = ReactorManager.firstSweep

        mutating func insert(_ reactor: any AnyReactor, owner: AnyObject, bus: Flux) {
            let id = ObjectIdentifier(reactor)
            let ownerID = ObjectIdentifier(owner)
            reactors[id] = reactor
            byOwner[ownerID, default: []].append(id)
            ownerOfReactor[id] = ownerID
            busOfReactor[id] = ObjectIdentifier(bus)
        }

        mutating func remove(_ id: ObjectIdentifier) {
            busOfReactor[id] = nil
            guard reactors.removeValue(forKey: id) != nil, let ownerID = ownerOfReactor.removeValue(forKey: id) else {
                return
            }
            byOwner[ownerID]?.removeAll { $0 == id }
            if byOwner[ownerID]?.isEmpty == true { byOwner[ownerID] = nil }
            // Far fewer reactors: the next sweep comes at twice their count again.
            if 4 * reactors.count < sweepAt { scheduleSweep() }
        }

        /// Sets the next sweep at twice the count of reactors (at least the first sweep's).
        mutating func scheduleSweep() {
            sweepAt = max(ReactorManager.firstSweep, 2 * reactors.count)
        }

        /// The reactors registered under `owner`'s identity whose owner is still that object (an
        /// identity can be reused once its object is freed).
        func reactors(of owner: AnyObject) -> [any AnyReactor] {
            registered(under: owner).filter { $0.anyOwner === owner }
        }

        /// The reactors registered under `owner`'s identity, whatever their owner now.
        func registered(under owner: AnyObject) -> [any AnyReactor] {
            (byOwner[ObjectIdentifier(owner)] ?? []).compactMap { reactors[$0] }
        }
    }

    private let registry = LockedValue(Registry())

    /// A manager of its own (the facade uses ``shared``).
    public init() {}

    /// Creates a reactor for `owner` bound to `substances`, and keeps it until its owner goes away
    /// or it is detached.
    ///
    /// The owner must be `Sendable`: the reactor hands it to its handler on the bus's thread (a
    /// `@MainActor` class is `Sendable`; give it a ``Reactor/mainActorHandler``).
    public func reactor<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substances: [any AnySubstance]
    ) -> Reactor<Owner> {
        makeReactor(attachedTo: owner, mixing: substances, delivery: .bus)
    }

    /// ``reactor(attachedTo:mixing:)`` for any owner: its caller decides where the
    /// reactions run.
    func makeReactor<Owner: AnyObject>(
        attachedTo owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery
    ) -> Reactor<Owner> {
        let reactor = Reactor(owner: owner, substances: substances, delivery: delivery, manager: self)
        let sweeps = registry.withLock { registry in
            registry.insert(reactor, owner: owner, bus: reactor.bus)
            return registry.reactors.count >= registry.sweepAt
        }
        // A reactor whose owner went after its last substance has no reaction left to notice
        // (see `Reactor.routeWentAway()`): attaching sweeps for such reactors each time the count
        // doubles since the last sweep (or since it fell), so that they stay about as few as the
        // live ones, at a constant cost per attachment. A UI owner is looked at on the main actor.
        if sweeps { sweep() }
        return reactor
    }

    /// Detaches the reactors whose owner has gone (a UI owner looked at on the main actor), then
    /// sets the next sweep.
    private func sweep() {
        for case let reactor as any SweptReactor in registry.withLock({ Array($0.reactors.values) }) {
            reactor.detachIfOwnerGone()
        }
        registry.withLock { $0.scheduleSweep() }
    }

    /// How many attached reactors the first sweep waits for.
    static let firstSweep = 64

    /// Every attached reactor whose owner is alive. Disposes of the others first.
    public var reactors: [any AnyReactor] {
        purge()
        return registry.withLock { Array($0.reactors.values) }
    }

    /// The reactors attached to `owner`.
    ///
    /// - Complexity: O(*k*) for *k* reactors of that owner.
    public func reactors(of owner: AnyObject) -> [any AnyReactor] {
        registry.withLock { $0.reactors(of: owner) }
    }

    /// Detaches every reactor of `owner`. Returns how many there were.
    ///
    /// Works from the owner's own `deinit` too (`deinit { manager.detach(from: self) }`).
    @discardableResult
    public func detach(from owner: AnyObject) -> Int {
        // In the owner's deinit its reactors' weak references read nil already: those under its
        // identity whose owner is gone are its own then (its memory is not freed yet, so no other
        // object has its identity), or a freed object's before it, which are for disposal anyway.
        let mine = registry.withLock { $0.registered(under: owner) }.filter { reactor in
            // One weak load per reactor.
            guard let current = reactor.anyOwner else { return true }
            return current === owner
        }
        for reactor in mine { reactor.detach() }
        return mine.count
    }

    /// Detaches every reactor whose owner has gone. Returns how many.
    @discardableResult
    public func purge() -> Int {
        // Owners are looked at outside the lock: a weak load hands back a strong reference, and
        // if another thread lets the owner go meanwhile, releasing it runs its deinit here, which
        // may detach its reactors (and take this lock).
        let gone = registry.withLock { Array($0.reactors.values) }.filter { $0.anyOwner == nil }
        for reactor in gone { reactor.detach() }
        return gone.count
    }

    /// Detaches every reactor (tests, resets).
    public func removeAll() {
        for reactor in registry.withLock({ Array($0.reactors.values) }) { reactor.detach() }
    }

    /// Detaches every reactor whose substances mix on `bus`, and no other: what a test on a bus of
    /// its own resets without touching the tests that run beside it.
    public func removeAll(on bus: Flux) {
        let id = ObjectIdentifier(bus)
        let reactors = registry.withLock { registry in
            registry.busOfReactor.compactMap { $0.value == id ? registry.reactors[$0.key] : nil }
        }
        for reactor in reactors { reactor.detach() }
    }

    /// The number of attached reactors, alive or awaiting disposal.
    public var count: Int { registry.withLock { $0.reactors.count } }

    func remove(_ reactor: any AnyReactor) {
        registry.withLock { $0.remove(ObjectIdentifier(reactor)) }
    }
}

/// What the manager's sweep asks of the reactors it holds (every one is a `Reactor`).
protocol SweptReactor: AnyReactor {
    /// Detaches the reactor if its owner has gone, looked at where the owner may be let go.
    func detachIfOwnerGone()
}

extension Reactor: SweptReactor {}
