import FlaskLocking
import FluxBus
import Synchronization

/// A substance that also reacts to global mixers and typed actions: the seed's "Fluxor style"
/// store.
///
/// ```swift
/// enum EnvMixers: SubstanceMixer { case Login, Logout }
///
/// class AppReactiveSubstance: ReactiveSubstance<AppState, EnvMixers> {
///     override func defineMixers() {
///         define(mix: .Login) { payload, react, abort in
///             self.prop.title = "signed"
///             react()
///         }
///         define(Rename.self) { action, react, abort in   // a typed action (FlaskAction)
///             self.prop.title = action.title
///             react()
///         }
///     }
/// }
/// ```
///
/// Each mixer is registered on the bus once per substance, however many reactors bind it, and goes
/// away with the substance. A mixer runs on the bus as one transaction: `react()` commits it and
/// reactors see the changes; `abort()` leaves the state exactly as it was.
///
/// Mixer bodies are never stored: at creation `defineMixers()` runs once to learn which mixers and
/// actions the substance defines, and when one is dispatched it runs again, on the bus, and
/// executes the matching body. So a body may capture `self` without creating a reference cycle,
/// and a substance nobody references is freed. The rule that follows: `defineMixers()` only calls
/// `define`, the same ones every time (a `define` made only sometimes, or work done beside the
/// `define` calls, runs again at every dispatch). A mixer defined twice runs its first body.
///
/// Enum mixers are matched by value, associated values included: a case with associated values
/// (`case login(user: String)`) is reported where it is defined (`mixer-with-values`), since no
/// dispatch of another value would reach it. Carry data in a ``FlaskAction`` instead.
///
/// `@unchecked Sendable`: inherits ``Substance``'s reasoning; the mixer table is behind a lock, the
/// dispatch bookkeeping is ``BusConfined`` (touched in `init` before the bus can reach the
/// substance: its mixers are observed only once `defineMixers()` has run), and the registration
/// flag is atomic.
open class ReactiveSubstance<S: State, M: SubstanceMixer>: Substance<S>, @unchecked Sendable {
    /// A mixer body: the payload of the dispatch, and `react`/`abort` to resolve the transaction.
    public typealias Mixer = (_ payload: FluxPayload?, _ react: MixerResolution, _ abort: MixerResolution) -> Void
    /// An action body: the action, and `react`/`abort` to resolve the transaction.
    public typealias ActionBody<A: FlaskAction> =
        (_ action: A, _ react: MixerResolution, _ abort: MixerResolution) -> Void

    private let observations = LockedValue<[FluxMixerName: FluxObservation]>([:])
    /// What `define` needs to know while `defineMixers()` runs for a dispatch, in one property:
    /// each property of a generic class is found through its metadata.
    @exclusivity(unchecked) private final var definition: BusConfined<MixerDefinition>
    /// True while `init` runs `defineMixers()` to learn the mixers.
    private let registering = Atomic<Bool>(false)
    /// The mixers and actions `init` learned, in the order of their first definition: used only by
    /// `init`, on its thread, before the bus can reach the substance.
    @exclusivity(unchecked) private final var learned: [Learned] = []
    private let resolver: MixerResolver

    private enum Learned {
        case mixer(M)
        case action(FluxMixerName)
    }

    public override init(name: String? = nil, archive: Bool = false, bus: Flux = .shared) {
        resolver = MixerResolver(bus: bus)
        definition = BusConfined(MixerDefinition(), on: bus, "ReactiveSubstance.define outside init and dispatches")
        super.init(name: name, archive: archive, bus: bus)
        resolver.reference = reference
        // The mixers are learned first and observed after: no dispatch can reach the substance
        // while `init` still writes its bookkeeping.
        registering.store(true, ordering: .relaxed)
        defineMixers()
        registering.store(false, ordering: .relaxed)
        for (position, definition) in learned.enumerated() {
            switch definition {
            case .mixer(let mixer): register(mixer, position: position)
            case .action(let name): registerAction(name, position: position)
            }
        }
        learned = []
    }

    /// Override to ``define(mix:_:)`` the mixers, and ``define(_:_:)`` the actions, this substance
    /// reacts to. It runs at creation and again at every dispatch (see the type's notes): only
    /// call `define`, the same ones every time.
    open func defineMixers() {}

    /// Reacts to `mixer` with `body`, run on the bus as one transaction.
    ///
    /// Call it only from ``defineMixers()``.
    public func define(mix mixer: M, _ body: Mixer) {
        // `init` learns the mixers first, on its thread, before the bus can reach the substance;
        // after that the definitions are read on the bus only (a debug build traps elsewhere).
        if registering.load(ordering: .relaxed) {
            learn(.mixer(mixer), equal: { if case .mixer(let other) = $0 { other == mixer } else { false } })
        } else if let event = definition.value.runningEvent {
            // Only the definition at the running mixer's position is compared with it, so a
            // dispatch costs a few instructions per other mixer the substance defines.
            let position = definition.value.nextPosition
            definition.value.nextPosition &+= 1
            let expected = definition.value.runningPosition
            if expected < 0 || position == expected, let running = definition.value.runningMixer,
                running.assumingMemoryBound(to: M.self).pointee == mixer
            {
                definition.value.ranBody = true
                run(event) { react, abort in body(event.pointee.payload, react, abort) }
            }
        } else {
            register(mixer, position: nil)
            bus.report(
                .reactorMisuse,
                "\(name()): define(mix: \(mixer)) called outside defineMixers(); its body will never run")
        }
    }

    /// Reacts to actions of type `A` with `body`, run on the bus as one transaction.
    ///
    /// Call it only from ``defineMixers()``.
    public func define<A: FlaskAction>(_ action: A.Type, _ body: ActionBody<A>) {
        if registering.load(ordering: .relaxed) {
            let name = A.busName
            learn(.action(name), equal: { if case .action(let other) = $0 { other == name } else { false } })
        } else if let event = definition.value.runningEvent {
            let position = definition.value.nextPosition
            definition.value.nextPosition &+= 1
            let expected = definition.value.runningPosition
            if expected < 0 || position == expected, definition.value.runningAction == ObjectIdentifier(A.self) {
                definition.value.ranBody = true
                guard let action = A.carried(by: event.pointee) else {
                    return bus.report(
                        .reactorMisuse,
                        "\(name()): an action of type \(A.self) arrived without its value; it was ignored")
                }
                run(event) { react, abort in body(action, react, abort) }
            }
        } else {
            registerAction(A.busName, position: nil)
            bus.report(
                .reactorMisuse,
                "\(name()): define(\(A.self).self) called outside defineMixers(); its body will never run")
        }
    }

    /// Learns a definition while `init` runs `defineMixers()`; a second one of the same mixer only
    /// makes dispatches compare every definition.
    private final func learn(_ definition: Learned, equal: (Learned) -> Bool) {
        if learned.contains(where: equal) {
            self.definition.unchecked.definesTwice = true
        } else {
            learned.append(definition)
        }
    }

    /// Observes `mixer` on the bus. `position` is its place among the `define` calls when `init`
    /// learns the mixers, nil for a mixer defined later (then found by comparing every definition).
    private final func register(_ mixer: M, position: Int?) {
        let name = mixer.busName
        guard observations.withLock({ $0[name] == nil }) else { return }
        if MixerValues.has(mixer) {
            bus.report(
                .mixerWithValues,
                "\(self.name()): define(mix: \(mixer)): a mixer case with associated values is matched with its values "
                    + "too, so a dispatch of other values never reaches it; carry data in a FlaskAction")
        }
        let position = position ?? -1
        let stored = StoredMixer(mixer)
        // The owner is this substance: cast without a check.
        let observation = bus.observe(name, untypedOwner: self) { substance, event in
            unsafeDowncast(substance, to: ReactiveSubstance.self).dispatch(stored.address, at: position, event)
        }
        observations.withLock { $0[name] = observation }
    }

    /// Observes the action named `name` on the bus (see ``register(_:position:)``).
    private final func registerAction(_ name: FluxMixerName, position: Int?) {
        guard observations.withLock({ $0[name] == nil }), let type = name.domain else { return }
        let position = position ?? -1
        let id = ObjectIdentifier(type)
        let observation = bus.observe(name, untypedOwner: self) { substance, event in
            unsafeDowncast(substance, to: ReactiveSubstance.self).dispatch(action: id, at: position, event)
        }
        observations.withLock { $0[name] = observation }
    }

    deinit {
        for observation in observations.withLock({ $0.values }) { observation.cancel() }
    }

    private final func dispatch(_ mixer: UnsafePointer<M>, at position: Int, _ event: FluxEvent) {
        // The event is borrowed for the length of `defineMixers()`, not copied (its payload would
        // be retained and released on every dispatch); the mixer was stored at registration (a
        // generic value borrowed here would go through the unspecialized `withUnsafePointer`).
        withUnsafePointer(to: event) { event in
            definition.value.start(mixer: UnsafeRawPointer(mixer), event, at: position)
            runDefinitions()
        }
    }

    private final func dispatch(action: ObjectIdentifier, at position: Int, _ event: FluxEvent) {
        withUnsafePointer(to: event) { event in
            definition.value.start(action: action, event, at: position)
            runDefinitions()
        }
    }

    /// Runs `defineMixers()` for the dispatch that `definition` describes.
    private final func runDefinitions() {
        defineMixers()
        if definition.value.mustCompareAll() {
            // `defineMixers()` defined its mixers in another order than at registration: look at
            // every definition.
            defineMixers()
        }
        definition.value.finish()
    }

    /// Runs a body as one transaction: `invoke` calls it with `react` and `abort`.
    private final func run(
        _ event: UnsafePointer<FluxEvent>, _ invoke: (MixerResolution, MixerResolution) -> Void
    ) {
        beginTransaction()
        let serial = resolver.begin()
        invoke(
            MixerResolution(resolver: resolver, serial: serial, commits: true),
            MixerResolution(resolver: resolver, serial: serial, commits: false))
        let outcome = resolver.end()
        switch outcome {
        case true?:
            if let changes = commitTransaction() {
                let lock = event.pointee.lock
                lock?.handOver()
                deliver(changes, lock: lock)
            }
        case false?:
            abortTransaction()
        case nil:
            abortTransaction()
            bus.report(
                .mixerUnresolved,
                "\(name()): mixer \(event.pointee.mixer) returned without react() or abort(); it was aborted")
        }
    }
}

/// A registered mixer at an address of its own, for its observation's lifetime: a dispatch
/// compares definitions with it there.
///
/// `@unchecked Sendable`: the value is written once, in `init`, and then only read.
private final class StoredMixer<M: SubstanceMixer>: @unchecked Sendable {
    let address: UnsafeMutablePointer<M>

    init(_ mixer: M) {
        address = .allocate(capacity: 1)
        address.initialize(to: mixer)
    }

    deinit {
        address.deinitialize(count: 1)
        address.deallocate()
    }
}

/// The bookkeeping of `defineMixers()` runs: registration at creation, or the dispatch of one mixer.
/// Not nested in the generic substance class, nor generic: its metadata would be looked up at run
/// time on every dispatch.
struct MixerDefinition {
    /// The mixer being dispatched (an `M`), or the type of the action being dispatched, and its
    /// event, while `defineMixers()` runs for it.
    var runningMixer: UnsafeRawPointer?
    var runningAction: ObjectIdentifier?
    var runningEvent: UnsafePointer<FluxEvent>?
    /// Where in `defineMixers()` the running mixer is defined (its position among the `define`
    /// calls, learned at registration), or -1 to compare every definition with it.
    var runningPosition = -1
    /// The position of the next `define` call.
    var nextPosition = 0
    /// Whether a definition matched the running mixer.
    var ranBody = false
    /// Whether `defineMixers()` defines a mixer twice (then every definition is compared).
    var definesTwice = false

    mutating func start(mixer: UnsafeRawPointer, _ event: UnsafePointer<FluxEvent>, at position: Int) {
        runningMixer = mixer
        start(event, at: position)
    }

    mutating func start(action: ObjectIdentifier, _ event: UnsafePointer<FluxEvent>, at position: Int) {
        runningAction = action
        start(event, at: position)
    }

    private mutating func start(_ event: UnsafePointer<FluxEvent>, at position: Int) {
        runningEvent = event
        runningPosition = definesTwice ? -1 : position
        ranBody = false
        nextPosition = 0
    }

    /// Ends a dispatch: the borrowed mixer and event are no longer valid.
    mutating func finish() {
        runningMixer = nil
        runningAction = nil
        runningEvent = nil
    }

    /// After a run by position that found nothing there: prepares a run that compares every
    /// definition and returns true.
    mutating func mustCompareAll() -> Bool {
        guard !ranBody && runningPosition >= 0 else { return false }
        runningPosition = -1
        nextPosition = 0
        return true
    }
}

/// Whether a mixer is an enumeration case with associated values (`case login(user: String)`),
/// which dispatches of other values never reach.
enum MixerValues {
    static func has<M: SubstanceMixer>(_ mixer: M) -> Bool {
        // An enumeration without associated values takes at most a byte; only bigger mixers need
        // a look.
        guard MemoryLayout<M>.size > 1 else { return false }
        let mirror = Mirror(reflecting: mixer)
        return mirror.displayStyle == .enum && !mirror.children.isEmpty
    }
}
