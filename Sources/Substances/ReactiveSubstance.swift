import FlaskLocking
import FluxBus
import Synchronization

/// A substance that also reacts to global mixers: the seed's "Fluxor style" store.
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
///     }
/// }
/// ```
///
/// Each mixer is registered on the bus once per substance, however many reactors bind it, and goes
/// away with the substance. A mixer runs on the bus as one transaction: `react()` commits it and
/// reactors see the changes; `abort()` leaves the state exactly as it was.
///
/// Mixer bodies are never stored: at creation `defineMixers()` runs once to learn which mixers the
/// substance defines, and when one is dispatched it runs again and executes the matching body. So
/// a body may capture `self` without creating a reference cycle, and a substance nobody references
/// is freed. Keep `defineMixers()` to `define(mix:)` calls.
///
/// `@unchecked Sendable`: inherits ``Substance``'s reasoning; the mixer table is behind a mutex, the
/// dispatch bookkeeping is ``BusConfined`` (touched in `init` before the bus can reach the
/// substance: its mixers are observed only once `defineMixers()` has run), and the registration
/// flag is atomic.
open class ReactiveSubstance<S: State, M: SubstanceMixer>: Substance<S>, @unchecked Sendable {
    /// A mixer body: the payload of the dispatch, and `react`/`abort` to resolve the transaction.
    public typealias Mixer = (_ payload: FluxPayload?, _ react: MixerResolution, _ abort: MixerResolution) -> Void

    private let observations = LockedValue<[M: FluxObservation]>([:])
    /// What `define(mix:)` needs to know while `defineMixers()` runs for a dispatch, in one
    /// property: each property of a generic class is found through its metadata.
    @exclusivity(unchecked) private final var definition: BusConfined<MixerDefinition>
    /// True while `init` runs `defineMixers()` to learn the mixers.
    private let registering = Atomic<Bool>(false)
    /// The mixers `init` learned, in the order of their first definition: used only by `init`, on
    /// its thread, before the bus can reach the substance.
    @exclusivity(unchecked) private final var learnedMixers: [M] = []
    private let resolver: MixerResolver

    public override init(name: String? = nil, archive: Bool = false, bus: Flux = .shared) {
        resolver = MixerResolver(bus: bus)
        definition = BusConfined(
            MixerDefinition(), on: bus, "ReactiveSubstance.define(mix:) outside init and dispatches")
        super.init(name: name, archive: archive, bus: bus)
        resolver.reference = reference
        // The mixers are learned first and observed after: no dispatch can reach the substance
        // while `init` still writes its bookkeeping.
        registering.store(true, ordering: .relaxed)
        defineMixers()
        registering.store(false, ordering: .relaxed)
        for (position, mixer) in learnedMixers.enumerated() { register(mixer, position: position) }
        learnedMixers = []
    }

    /// Override to ``define(mix:_:)`` the mixers this substance reacts to.
    open func defineMixers() {}

    /// Reacts to `mixer` with `body`, run on the bus as one transaction.
    ///
    /// Call it only from ``defineMixers()``.
    public func define(mix mixer: M, _ body: Mixer) {
        // `init` learns the mixers first, on its thread, before the bus can reach the substance;
        // after that the definitions are read on the bus only (a debug build traps elsewhere).
        if registering.load(ordering: .relaxed) {
            if learnedMixers.contains(mixer) {
                definition.unchecked.definesTwice = true
            } else {
                learnedMixers.append(mixer)
            }
        } else if let event = definition.value.runningEvent {
            // Only the definition at the running mixer's position is compared with it, so a
            // dispatch costs a few instructions per other mixer the substance defines.
            let position = definition.value.nextPosition
            definition.value.nextPosition &+= 1
            let expected = definition.value.runningPosition
            if expected < 0 || position == expected,
                definition.value.runningMixer.unsafelyUnwrapped.assumingMemoryBound(to: M.self).pointee == mixer
            {
                definition.value.ranBody = true
                run(body, event)
            }
        } else {
            register(mixer, position: nil)
            bus.report(
                .reactorMisuse,
                "\(name()): define(mix: \(mixer)) called outside defineMixers(); its body will never run")
        }
    }

    /// Observes `mixer` on the bus. `position` is its place among the `define(mix:)` calls when
    /// `init` learns the mixers, nil for a mixer defined later (then found by comparing every
    /// definition).
    private final func register(_ mixer: M, position: Int?) {
        let isNew = observations.withLock { $0[mixer] == nil }
        guard isNew else { return }
        let position = position ?? -1
        let stored = StoredMixer(mixer)
        // The owner is this substance: cast without a check.
        let observation = bus.observe(mixer.busName, untypedOwner: self) { substance, event in
            unsafeDowncast(substance, to: ReactiveSubstance.self).dispatch(stored.address, at: position, event)
        }
        observations.withLock { $0[mixer] = observation }
    }

    deinit {
        for observation in observations.withLock({ $0.values }) { observation.cancel() }
    }

    private final func dispatch(_ mixer: UnsafePointer<M>, at position: Int, _ event: FluxEvent) {
        // The event is borrowed for the length of `defineMixers()`, not copied (its payload would
        // be retained and released on every dispatch); the mixer was stored at registration (a
        // generic value borrowed here would go through the unspecialized `withUnsafePointer`).
        withUnsafePointer(to: event) { event in
            definition.value.start(UnsafeRawPointer(mixer), event, at: position)
            defineMixers()
            if definition.value.mustCompareAll() {
                // `defineMixers()` defined its mixers in another order than at registration:
                // look at every definition.
                defineMixers()
            }
            definition.value.finish()
        }
    }

    private final func run(_ body: Mixer, _ event: UnsafePointer<FluxEvent>) {
        beginTransaction()
        let serial = resolver.begin()
        body(
            event.pointee.payload,
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
    /// The mixer being dispatched (an `M`) and its event, while `defineMixers()` runs for it.
    var runningMixer: UnsafeRawPointer?
    var runningEvent: UnsafePointer<FluxEvent>?
    /// Where in `defineMixers()` the running mixer is defined (its position among the
    /// `define(mix:)` calls, learned at registration), or -1 to compare every definition with it.
    var runningPosition = -1
    /// The position of the next `define(mix:)` call.
    var nextPosition = 0
    /// Whether a definition matched the running mixer.
    var ranBody = false
    /// Whether `defineMixers()` defines a mixer twice (then every definition is compared).
    var definesTwice = false

    mutating func start(_ mixer: UnsafeRawPointer, _ event: UnsafePointer<FluxEvent>, at position: Int) {
        runningMixer = mixer
        runningEvent = event
        runningPosition = definesTwice ? -1 : position
        ranBody = false
        nextPosition = 0
    }

    /// Ends a dispatch: the borrowed mixer and event are no longer valid.
    mutating func finish() {
        runningMixer = nil
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
