import Dispatch
import FluxBus
import Substances
import Synchronization

private let reactorSerial = Atomic<UInt64>(0)

/// Receives the changes of the substances it is bound to, for as long as its owner lives.
///
/// ```swift
/// let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
/// reactor.handler = { owner, reaction in
///     reaction.on(AppState.prop.counter) { change in owner.show(change.newValue() as Int?) }
/// }
/// reactor.mix(substance) { $0.prop.counter = 10 }.react()
/// ```
///
/// The owner is held weakly. When it goes away the reactor detaches itself at its next reaction,
/// or at ``ReactorManager/purge()``, and is freed. Until then a reactor and its substances keep
/// each other alive: detach a reactor to let go of its substances before its owner goes.
///
/// While the bus runs a batch of work, it keeps the owners of reactors that react on the bus alive
/// for a while: at most 128 work items, and never into a task (such as the one that resumes
/// `flush()`). An owner whose last other reference goes meanwhile can receive reactions until
/// then, and is freed on the bus, then. (Loading a weak reference for every reaction cost more than
/// the rest of a reaction; see docs/performance.md.) The owner of a reactor with `.mainQueue`
/// delivery or a ``mainActorHandler`` is not held: a UI owner is released where it was before.
///
/// `@unchecked Sendable`: the handler is behind a mutex for callers, with a copy confined to the
/// bus for delivery (updated by an exclusive-lane task); everything else is immutable or atomic.
public final class Reactor<Owner: AnyObject>: AnyReactor, SubstanceObserver, @unchecked Sendable {
    /// A handler: the owner (alive) and the reaction.
    public typealias Handler = @Sendable (Owner, FlaskReaction) -> Void
    /// A handler isolated to the main actor, for UI owners.
    public typealias MainActorHandler = @MainActor (Owner, FlaskReaction) -> Void

    /// The owner, while it lives.
    // Written once, in init; weak loads are atomic.
    @exclusivity(unchecked) public private(set) weak var owner: Owner?
    /// The substances it reacts to, held weakly: a substance holds its bound reactors, and a
    /// reactor holding its substances back would keep both alive until the reactor is detached.
    private let weakSubstances: [WeakSubstance]
    /// Where the handler runs.
    public let delivery: ReactionDelivery
    let bus: Flux
    /// Creation order, unique per process.
    package let serial = reactorSerial.add(1, ordering: .relaxed).newValue
    private weak var manager: ReactorManager?
    /// The handlers and keys as set, behind one lock (one allocation per reactor, not three).
    private let settings = LockedValue(ReactorSettings<Owner>())
    // Bus-confined copy of the main-actor handler.
    @exclusivity(unchecked) private var busMainActorHandler: MainActorHandler?
    private let detached = Atomic<Bool>(false)
    // Bus-confined copy of the handler, read on every delivery without a lock; replaced only by
    // exclusive-lane tasks, so never while it runs.
    @exclusivity(unchecked) private var busHandler: HandlerBox<Owner>? {
        didSet { unretainedBusHandler = busHandler.map(Unmanaged.passUnretained) }
    }
    // The same box, read without a retain: `busHandler` keeps it alive.
    @exclusivity(unchecked) private var unretainedBusHandler: Unmanaged<HandlerBox<Owner>>?
    /// The epoch of the holds of the bus that delivers to it (see `FluxBatchHolds`), nil when its
    /// substances mix on different buses. A pointer, not the holds: reading it retains nothing.
    private let holdsEpoch: UnsafePointer<UInt64>?
    // The owner as the bus holds it (see `FluxBatchHolds`). Bus-confined.
    @exclusivity(unchecked) private var heldOwner = FluxHeldObject()

    init(owner: Owner, substances: [any AnySubstance], delivery: ReactionDelivery, manager: ReactorManager?) {
        self.owner = owner
        self.weakSubstances = substances.map(WeakSubstance.init)
        self.delivery = delivery
        let bus = substances.first?.bus ?? .shared
        self.bus = bus
        self.manager = manager
        let onOneBus = !substances.contains(where: { $0.bus !== bus })
        self.holdsEpoch = onOneBus ? UnsafePointer(bus.batchHolds.epoch) : nil
        if !onOneBus {
            bus.report(
                .reactorMisuse, "a reactor's substances mix on different buses; reactions follow each substance's bus")
        }
        for substance in substances { substance.bind(self) }
    }

    /// The substances it reacts to that are still alive. The reactor does not keep them alive:
    /// whoever mixes them does.
    public var substances: [any AnySubstance] { weakSubstances.compactMap(\.substance) }

    /// Creates a reactor without a manager (the manager's ``ReactorManager/reactor(attachedTo:mixing:delivery:)``
    /// is the usual way).
    public convenience init(owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery = .bus) {
        self.init(owner: owner, substances: substances, delivery: delivery, manager: nil)
    }

    /// Called with every reaction. Set it right after creating the reactor: the change takes effect
    /// before any work item that has not started yet.
    public var handler: Handler? {
        get { settings.withLock { $0.handler } }
        set {
            settings.withLock { $0.handler = newValue }
            bus.performExclusive { [self] in
                // Not `newValue.map(HandlerBox.init)`: passing the closure through a generic
                // function would wrap it in reabstraction thunks, two calls more per reaction.
                if let newValue { busHandler = HandlerBox(newValue) } else { busHandler = nil }
            }
        }
    }

    /// Called with every reaction on the main actor, in commit order, as a handler the compiler
    /// knows is main-actor isolated. Use it instead of ``handler`` for UI owners.
    ///
    /// The bus does not wait for it. A lock that comes with an exclusive mix stays held until the
    /// handler releases it (`reaction.onLock?.release()`), so async flux works across the hop.
    public var mainActorHandler: MainActorHandler? {
        get { settings.withLock { $0.mainActorHandler } }
        set {
            settings.withLock { $0.mainActorHandler = newValue }
            bus.performExclusive { [self] in busMainActorHandler = newValue }
        }
    }

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
            let substances = self.substances
            for key in newValue ?? [] where !substances.contains(where: { $0.isValid(key: key) }) {
                bus.report(.unknownKey, "reactor.keys: none of the reactor's substances has a key \"\(key)\"")
            }
            guard !isDetached else { return }
            for substance in substances { substance.setInterest(of: self, keys: newValue) }
        }
    }

    public var anyOwner: AnyObject? { owner }
    public var isDetached: Bool { detached.load(ordering: .relaxed) }

    public func detach() {
        guard detached.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        for substance in substances { substance.unbind(self) }
        manager?.remove(self)
    }

    // MARK: Chains

    /// Starts a chain reaction with a step that mixes `substance`.
    @inlinable
    public func mix<T: AnySubstance>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        ChainReaction(bus: substance.bus).mix(substance, body)
    }

    /// Alias of ``mix(_:_:)``.
    public func mixing<T: AnySubstance>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    // MARK: Delivery (on the bus)

    public func substance(_ substance: any AnySubstance, didCommit changes: SubstanceChanges, lock: FluxLock?) {
        // The common case, kept small so that it needs no stack frame of its own: one handler on
        // the bus, the owner already held by the bus for this batch (see `FluxBatchHolds`). Owner
        // and handler are borrowed, not retained: the handler is replaced only between work items.
        // (The reaction is made inside the call: made outside, it was retained and released.)
        if let holdsEpoch, delivery == .bus, busMainActorHandler == nil, heldOwner.epoch == holdsEpoch.pointee,
            let held = heldOwner.object
        {
            return callBusHandler(Unmanaged.fromOpaque(held.toOpaque()), changes, lock)  // held as `Owner`
        }
        deliverAfterChecks(changes, lock: lock)
    }

    /// Calls the bus handler, if any, with `owner`; both borrowed, not retained.
    @inline(__always)
    private func callBusHandler(_ owner: Unmanaged<Owner>, _ changes: SubstanceChanges, _ lock: FluxLock?) {
        owner._withUnsafeGuaranteedRef { owner in
            unretainedBusHandler?._withUnsafeGuaranteedRef { handler in
                handler.call(owner, FlaskReaction(changes: changes, onLock: lock))
            }
        }
    }

    /// Every other case: the owner to load and hold, a UI owner, two buses.
    @inline(never)
    private func deliverAfterChecks(_ changes: SubstanceChanges, lock: FluxLock?) {
        guard holdsEpoch != nil else {
            // Substances on several buses: no one bus says how long a hold lasts, and the handlers'
            // bus-confined copies belong to the first bus; read them as set, under their lock.
            guard let owner else { return detach() }
            let (handler, mainActorHandler) = settings.withLock { ($0.handler, $0.mainActorHandler) }
            let reaction = FlaskReaction(changes: changes, onLock: lock)
            return deliverElsewhere(owner, reaction, handler: handler, mainActorHandler: mainActorHandler)
        }
        guard delivery == .bus, busMainActorHandler == nil else {
            // A UI owner, handed to the main queue: not held by the bus, so that its last release
            // stays where it was (usually the main thread).
            guard let owner else { return detach() }
            let reaction = FlaskReaction(changes: changes, onLock: lock)
            return deliverElsewhere(owner, reaction, handler: busHandler?.call, mainActorHandler: busMainActorHandler)
        }
        // On the bus, the owner not held yet for this batch: loaded from its weak reference, once
        // per hold, not per delivery (see `FluxBatchHolds`).
        guard let strong = self.owner else { return detach() }
        bus.batchHolds.hold(strong, in: &heldOwner)
        callBusHandler(Unmanaged.passUnretained(strong), changes, lock)
    }

    /// The cases other than one handler called on the bus. Out of line: the common case stays
    /// small.
    @inline(never)
    private func deliverElsewhere(
        _ owner: Owner, _ reaction: FlaskReaction, handler: Handler?, mainActorHandler: MainActorHandler?
    ) {
        if let mainActorHandler {
            // The owner is used only on the main actor, where a UI owner lives.
            nonisolated(unsafe) let owner = owner
            DispatchQueue.main.async {
                MainActor.assumeIsolated { mainActorHandler(owner, reaction) }
            }
        }
        guard let handler else { return }
        switch delivery {
        case .bus:
            handler(owner, reaction)
        case .mainQueue:
            // The owner is a main-thread object by the contract of `.mainQueue` delivery; it is only
            // used on the main queue.
            nonisolated(unsafe) let owner = owner
            DispatchQueue.main.async { handler(owner, reaction) }
        }
    }
}

/// A substance held weakly, written once.
///
/// `@unchecked Sendable`: the weak reference is set in `init` and only read afterwards; weak loads
/// are atomic.
struct WeakSubstance: @unchecked Sendable {
    weak var substance: (any AnySubstance)?

    init(_ substance: any AnySubstance) {
        self.substance = substance
    }
}

/// What a reactor's user set: read back by the properties' getters.
private struct ReactorSettings<Owner: AnyObject> {
    var handler: Reactor<Owner>.Handler?
    var mainActorHandler: Reactor<Owner>.MainActorHandler?
    var keys: [String]?
}

/// A reactor's handler in a box, so the bus can call it without retaining it.
private final class HandlerBox<Owner: AnyObject>: Sendable {
    let call: Reactor<Owner>.Handler

    init(_ call: @escaping Reactor<Owner>.Handler) {
        self.call = call
    }
}
