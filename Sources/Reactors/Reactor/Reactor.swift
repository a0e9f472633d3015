import Dispatch
import FlaskLocking
import FluxBus
import Substances
import Synchronization

private let reactorSerial = Atomic<UInt64>(0)

/// Receives the changes of the substances it is bound to, for as long as its owner lives.
///
/// ```swift
/// final class CounterLog: Sendable {
///     let entries = Mutex<[Int]>([])
/// }
/// let reactor = Flask.reactor(attachedTo: log, mixing: substance)
/// reactor.handler = { log, reaction in
///     reaction.on(AppState.prop.counter) { change in log.entries.withLock { $0.append(change.newValue() ?? 0) } }
/// }
/// ```
///
/// Where the reactions run:
/// - ``handler`` runs **on the bus**, right after the commit and before the next work item. It
///   receives the owner on the bus's thread, so it is offered only for a `Sendable` owner: a
///   class of immutable or lock-guarded state, or an actor.
/// - ``mainActorHandler`` runs **on the main actor**, in commit order: the one for UI owners (every
///   `@MainActor` class, which is every view and view controller). The bus does not wait for it.
/// - `Flask.attachReactor(to:mixing:)` picks for a ``FlaskReactor`` owner: on the main actor when
///   attached from it, on the bus when attached from nonisolated code.
///
/// A reactor's owner must be `Sendable` (`@MainActor` classes are): the compiler rejects a plain
/// class, whose state the bus's thread and its own would share unprotected.
///
/// The owner is held weakly. When it goes away the reactor detaches itself at its next reaction,
/// or when its last substance goes, if the owner has gone by then, and is freed. (One whose owner
/// goes after its last substance is found by the manager's next sweep: ``ReactorManager/purge()``,
/// which attaching reactors runs each time their count doubles.) The reactor holds its substances
/// weakly too: whoever mixes them keeps them alive.
///
/// While the bus runs a batch of work, it keeps the owners of reactors that react on the bus alive
/// for a while: at most 128 work items, and never into a task (such as the one that resumes
/// `flush()`). An owner whose last other reference goes meanwhile can receive reactions until
/// then, and is freed on the bus, then. (Loading a weak reference for every reaction costs more than
/// the rest of a reaction; see docs/performance.md.) The owner of a reactor whose reactions run on
/// an actor is not held, neither by the bus nor by the reactions on their way: a UI owner is
/// released where it was before, and an owner gone before its reactions arrive gets none of them.
///
/// Each place its reactions run is a route (`BusRoute`, `MainActorRoute`, `ActorRoute`), made from
/// the handlers as set and bound to the substances in the reactor's place: a commit calls the
/// route directly. The reactor coordinates: it keeps the settings, makes the routes when they
/// change, and detaches.
///
/// What changes (the settings) is behind a lock; the routes, made from them, are immutable but for
/// the held owner, which is `BusConfined`; everything else is immutable or atomic. The owner, of
/// any type, crosses threads only as a weak reference loaded where its handlers run.
public final class Reactor<Owner: AnyObject>: AnyReactor, Sendable {
    /// A handler that runs on the bus: the owner (alive) and the reaction.
    public typealias Handler = @Sendable (Owner, FlaskReaction) -> Void
    /// A handler isolated to the main actor, for UI owners.
    public typealias MainActorHandler = @MainActor (Owner, FlaskReaction) -> Void

    /// The owner, weakly: written once, in `init`, and loaded only where the reactor's handlers run
    /// (the bus for a `Sendable` owner, the main actor or the owner's actor for the others), so it
    /// may cross threads whatever its type.
    private let ownerReference: WeakReference<Owner>

    /// The owner, while it lives.
    public var owner: Owner? { ownerReference.object }
    /// The substances it reacts to, held weakly: a substance holds its bound reactors, and a
    /// reactor holding its substances back would keep both alive until the reactor is detached.
    private let weakSubstances: [SubstanceReference]
    /// Where a ``handler`` runs.
    public let delivery: ReactionDelivery
    /// The bus of the reactor's substances (the shared one for a reactor without substances), where
    /// its handlers run and its misuse is reported.
    public let bus: Flux
    /// Creation order, unique per process.
    package let serial = reactorSerial.add(1, ordering: .relaxed).newValue
    private weak let manager: ReactorManager?
    /// The handlers and keys as set, behind one lock (one allocation per reactor, not three).
    private let settings = LockedValue(ReactorSettings<Owner>())
    private let detached = Atomic<Bool>(false)
    /// The keys of its substances' states, when it has several (see `FlaskReaction.keyDomain`).
    private let keyDomain: StateKeyDomain

    package init(owner: Owner, substances: [any AnySubstance], delivery: ReactionDelivery, manager: ReactorManager?) {
        self.ownerReference = WeakReference(owner)
        self.weakSubstances = substances.map(SubstanceReference.of)
        self.keyDomain = StateKeyDomain.of(substances)
        self.delivery = delivery
        let bus = substances.first?.bus ?? .current
        self.bus = bus
        self.manager = manager
        if substances.contains(where: { $0.bus !== bus }) {
            bus.report(
                .reactorMisuse, "a reactor's substances mix on different buses; reactions follow each substance's bus")
        }
        for substance in substances where !(substance is any KeyedSubstance) {
            bus.report(.reactorMisuse, "\(substance.nameInReports) is not a Substance; a reactor cannot bind it")
        }
        updateDelivery()
    }

    deinit {
        settings.withLock { $0.actorDelivery?.finish() }
        UnknownKeyReports.forget(ObjectIdentifier(self))
    }

    /// The substances it reacts to that are still alive. The reactor does not keep them alive:
    /// whoever mixes them does.
    public var substances: [any AnySubstance] { weakSubstances.compactMap(\.substance) }

    /// The keys this reactor reacts to, or nil (the default) to react to every commit.
    ///
    /// With keys, a commit of one of the reactor's substances calls the handlers only if it changed
    /// one of them, or a key below one (`"info"` covers `"info.counter"`); a commit that hands over
    /// a lock (an exclusive mix) always calls them, so that they can release it. The handlers still
    /// use `reaction.on(key)` to tell the keys apart. Reactors whose keys did not change cost the
    /// bus a comparison of integers instead of a call, which matters when many reactors watch
    /// different parts of one state.
    ///
    /// ```swift
    /// let reactor = Flask.reactor(attachedTo: self, mixing: store)
    /// reactor.keys = ["title"]
    /// reactor.handler = { owner, reaction in
    ///     reaction.on("title") { change in owner.render(change.newValue() as String?) }
    /// }
    /// ```
    ///
    /// A key below a dictionary-like property counts as that property; a state archived through
    /// its Codable encoding (custom `CodingKeys`) is not filtered. A key that none of the
    /// reactor's substances has is reported once (`FluxDiagnostic.Code.unknownKey`). Takes effect
    /// before any work item that has not started yet.
    public var keys: [String]? {
        get { settings.withLock { $0.keys } }
        set {
            settings.withLock { $0.keys = newValue }
            reportUnknown(newValue ?? [], as: "reactor.keys")
            updateDelivery()
        }
    }

    /// Declares a reaction to `key`: `body` runs on the bus, with the owner and the change, after
    /// every commit that changed `key` (a dotted key, at any depth, through optionals and below
    /// dictionaries), exactly as `reaction.on(key)` inside a ``handler`` would.
    ///
    /// ```swift
    /// let reactor = Flask.reactor(attachedTo: log, mixing: substance)
    /// reactor.on("counter") { log, change in log.entries.withLock { $0.append(change.newValue() ?? 0) } }
    /// ```
    ///
    /// Since the reactor knows the keys of its declared reactions, its substances deliver to it
    /// only the commits that change one of them (unless a handler without declared ``keys`` wants
    /// every commit): a hundred reactors each declaring one key cost a commit the few that match.
    /// Declared reactions run after the handler, in the order they were declared. A key that none
    /// of the reactor's substances can have is reported once, here. Takes effect before any work
    /// item that has not started yet; there is no way to remove one but detaching the reactor.
    public func on(
        _ key: String, fileID: StaticString = #fileID, line: UInt = #line,
        _ body: @escaping @Sendable (Owner, SubstanceChange) -> Void
    ) where Owner: Sendable {
        // The owner is an `Owner`: the reactor passes its own.
        let reaction = DeclaredReaction(
            key: key, body: { owner, change in body(uncheckedCast(owner, to: Owner.self), change) },
            substance: weakSubstances.first?.substance)
        settings.withLock { $0.declared.append(reaction) }
        reportUnknown([key], as: "reactor.on(\"\(key)\") at \(fileID):\(line)", located: false)
        updateDelivery()
    }

    /// Declares a reaction to the key of `prop` (see `on(_:fileID:line:_:)` with a string key).
    public func on(
        _ prop: some StateProp, fileID: StaticString = #fileID, line: UInt = #line,
        _ body: @escaping @Sendable (Owner, SubstanceChange) -> Void
    ) where Owner: Sendable {
        on(prop.key, fileID: fileID, line: line, body)
    }

    /// Reports each of `keys` that none of the reactor's substances can have, once.
    private func reportUnknown(_ keys: [String], as what: String, located: Bool = true) {
        let substances = self.substances
        for key in keys where !substances.contains(where: { $0.isValid(key: key) }) {
            let place = located ? CallerLocation.current().map { " at \($0)" } ?? "" : ""
            bus.report(.unknownKey, "\(what)\(place): none of the reactor's substances has a key \"\(key)\"")
        }
    }

    /// Binds routes made from the settings to the substances, in place of the previous ones: on
    /// each bus, by an exclusive-lane task, so before any work item that has not started yet. The
    /// task reads the settings as they are when it runs, so that the last change wins whatever
    /// order the tasks of concurrent changes run in.
    private func updateDelivery() {
        var buses: [ObjectIdentifier: Flux] = [:]
        for substance in substances { buses[ObjectIdentifier(substance.bus)] = substance.bus }
        for bus in buses.values {
            bus.performUpkeep { [self] in
                guard !isDetached else { return }
                let (route, interest) = settings.withLock { ($0.route(of: self, on: bus), $0.interest) }
                for case let substance as any KeyedSubstance in substances where substance.bus === bus {
                    substance.bindOnBus(route, as: ObjectIdentifier(self), keys: interest)
                }
            }
        }
    }

    /// The owner, while it lives, untyped.
    public var anyOwner: AnyObject? { owner }
    /// Whether the reactor was detached (explicitly, or because its owner went away).
    public var isDetached: Bool { detached.load(ordering: .relaxed) }

    /// One of its routes was let go (a route's `deinit`): replaced by a new one, unbound, or freed
    /// with the last substance that held it. Once its substances have all gone, nothing will ever
    /// deliver to the reactor and notice that its owner has gone: a reactor whose owner has gone
    /// by then detaches, so that it and what its handlers capture are freed without waiting for a
    /// purge. Looked at in an upkeep task of its bus, not here: a route may go in the middle of
    /// anything, a lock held included. (An owner that goes later is left to the next sweep, see
    /// ``ReactorManager/purge()``.)
    func routeWentAway() {
        guard !isDetached else { return }
        bus.performUpkeep { [self] in
            // Some substance lives: its next commit looks at the owner.
            guard substances.isEmpty else { return }
            detachIfOwnerGone()
        }
    }

    /// Detaches the reactor if its owner has gone. Looked at on the main actor for a reactor that
    /// reacts there (a UI owner, whose last release must not happen on another thread: a weak
    /// load holds the owner a moment), at once for the others.
    func detachIfOwnerGone() {
        guard !isDetached else { return }
        let reactsOnMainActor = delivery == .mainQueue || settings.withLock { $0.mainActorHandler != nil }
        guard reactsOnMainActor else { return detachUnlessOwned() }
        MainActorMailbox.shared.send { [self] in detachUnlessOwned() }
    }

    private func detachUnlessOwned() {
        if owner == nil { detach() }
    }

    /// Unbinds the reactor from its substances and removes it from its manager; idempotent.
    public func detach() {
        guard detached.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        for case let substance as any KeyedSubstance in substances { substance.unbind(id: ObjectIdentifier(self)) }
        manager?.remove(self)
    }

    // MARK: Handlers

    /// Sets the handler that runs on the bus (nil removes it); takes effect before any work item
    /// that has not started yet.
    func setHandler(_ handler: Handler?) {
        settings.withLock { $0.handler = handler }
        updateDelivery()
    }

    /// Sets the handler that runs on the main actor (nil removes it).
    func setMainActorHandler(_ handler: MainActorHandler?) {
        settings.withLock { $0.mainActorHandler = handler }
        updateDelivery()
    }

    /// Calls `react`, a closure of the main actor, with every reaction, on the main actor.
    func reactOnMainActor(_ react: @escaping (Owner, FlaskReaction) -> Void) {
        // Made on the main actor and called only there.
        let react = UncheckedSendable(react)
        setMainActorHandler { owner, reaction in react.value(owner, reaction) }
    }

    /// Calls `react`, a closure of nonisolated code, with every reaction, on the bus.
    func reactOnBus(_ react: @escaping (Owner, FlaskReaction) -> Void) {
        // Made by nonisolated code, with nothing isolated in it: it may run on the bus.
        let react = UncheckedSendable(react)
        setHandler { owner, reaction in react.value(owner, reaction) }
    }

    /// Delivers through `delivery` from now on: reactions run, in commit order, where it runs them.
    func setActorDelivery(_ delivery: ActorDelivery<Owner>) {
        let previous = settings.withLock { settings in
            defer { settings.actorDelivery = delivery }
            return settings.actorDelivery
        }
        previous?.finish()
        updateDelivery()
    }

    // MARK: Chains

    /// Starts a chain reaction with a step that mixes `substance`.
    @inlinable
    public func mix<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        ChainReaction(bus: substance.bus).mix(substance, body)
    }

    /// Starts a chain reaction with a step that mixes `substance` and may abort the chain
    /// (see ``ChainReaction/mix(_:_:)-(_,(T,ChainAbort)->Void)``).
    @inlinable
    public func mix<S, T: Substance<S>>(
        _ substance: T, _ body: @escaping @Sendable (T, borrowing ChainAbort) -> Void
    ) -> ChainReaction {
        ChainReaction(bus: substance.bus).mix(substance, body)
    }

    // MARK: Reactions (for the routes)

    /// The reaction its handlers receive: this reactor takes the lock over if they read `onLock`.
    @inline(__always)
    func reaction(_ changes: SubstanceChanges, _ lock: FluxLock?) -> FlaskReaction {
        FlaskReaction(changes: changes, onLock: lock, keyDomain: keyDomain, claimant: ObjectIdentifier(self))
    }

    /// A reaction about to be sent off the bus. It claims its lock now, tentatively: the bus
    /// cannot wait to see whether its handler reads `onLock` (the claim is withdrawn once the
    /// handler has run, or when the reaction is not delivered).
    func sending(_ changes: SubstanceChanges, _ lock: FluxLock?) -> SentReaction {
        lock?.claim(by: ObjectIdentifier(self), tentatively: true)
        return SentReaction(reaction(changes, lock))
    }

    /// Delivers a reaction sent off the bus, where it arrived, to `handle` with the owner loaded
    /// now; not when the reactor was detached since it was sent, or its owner is gone (the reactor
    /// then detaches). Delivered or not, the reaction's tentative lock claim is withdrawn after,
    /// unless its handler read `onLock`.
    ///
    /// The owner is not held while the reaction waits (the bus never holds it, so a UI owner is
    /// released where it was): an owner its app released gets none of the reactions still queued
    /// for it, and is not kept alive by them.
    func receive(_ sent: SentReaction, _ handle: (Owner, FlaskReaction) -> Void) {
        defer { sent.reaction.withdrawTentativeLockClaim() }
        guard !isDetached, let owner else { return detach() }
        // Off the bus, the handler is still the bus's code: `Flux.current` is the reactor's bus.
        Flux.runningAsCurrent(bus) { handle(owner, sent.reaction) }
    }
}

extension Reactor where Owner: Sendable {
    /// Creates a reactor without a manager (the manager's ``ReactorManager/reactor(attachedTo:mixing:)``
    /// is the usual way).
    public convenience init(owner: Owner, mixing substances: [any AnySubstance]) {
        self.init(owner: owner, substances: substances, delivery: .bus, manager: nil)
    }

    /// Called with every reaction, on the bus (or on the main queue with `.mainQueue` delivery).
    /// Set it right after creating the reactor: the change takes effect before any work item that
    /// has not started yet.
    ///
    /// The owner arrives on the bus's thread, which is why the handler is offered only for a
    /// `Sendable` owner. For a `@MainActor` owner (a view, a view controller), whose state only
    /// the main actor may touch, use ``mainActorHandler``.
    public var handler: Handler? {
        get { settings.withLock { $0.handler } }
        set { setHandler(newValue) }
    }

    /// Called with every reaction on the main actor, in commit order, as a handler the compiler
    /// knows is main-actor isolated: the handler of UI owners.
    ///
    /// The bus does not wait for it. A lock that comes with an exclusive mix stays held until the
    /// handler has run, and, if the handler read `reaction.onLock`, until it releases it
    /// (`reaction.onLock?.release()`), so async flux works across the hop.
    public var mainActorHandler: MainActorHandler? {
        get { settings.withLock { $0.mainActorHandler } }
        set { setMainActorHandler(newValue) }
    }
}

// The reactions a reactor sends off the bus (`sending(_:_:)`) and receives where its handler runs
// (`receive(_:_:)`): the one crossing of a reaction, beside the two functions that make it safe.

/// A reaction crossing from the bus to where its handler runs (the main actor, another actor).
/// A reaction is not `Sendable`; this one may cross (an `UncheckedSendable`) because its changes
/// are marked escaped (never refilled) before it crosses, and its lock taken over; after that
/// only the receiving side uses it.
struct SentReaction: Sendable {
    private let crossing: UncheckedSendable<FlaskReaction>

    /// The reaction, where it arrived.
    var reaction: FlaskReaction { crossing.value }

    init(_ reaction: FlaskReaction) {
        self.crossing = UncheckedSendable(reaction)
    }
}

/// A reaction on its way to another actor, with its reactor, whose owner is loaded there (see
/// `Reactor.receive(_:_:)`).
struct Hop<Owner: AnyObject>: Sendable {
    let reactor: Reactor<Owner>
    let reaction: SentReaction
}
