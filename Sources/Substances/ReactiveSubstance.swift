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
/// `@unchecked Sendable`: inherits ``Substance``'s reasoning; the mixer table is behind a mutex and
/// the dispatch bookkeeping is touched only on the bus (or in `init`, before the bus can see it).
open class ReactiveSubstance<S: State, M: SubstanceMixer>: Substance<S>, @unchecked Sendable {
    /// A mixer body: the payload of the dispatch, and `react`/`abort` to resolve the transaction.
    public typealias Mixer = (_ payload: FluxPayload?, _ react: MixerResolution, _ abort: MixerResolution) -> Void

    private let observations = LockedValue<[M: FluxObservation]>([:])
    /// True while `init` runs `defineMixers()` to learn the mixers.
    @exclusivity(unchecked) private final var registering = false
    /// The mixer being dispatched and its event, while `defineMixers()` runs for it (on the bus).
    /// The mixer lives in a slot allocated once: an `M?` property would make every dispatch look
    /// up `Optional<M>`'s metadata at run time.
    private let runningMixer = UnsafeMutablePointer<M>.allocate(capacity: 1)
    @exclusivity(unchecked) private final var runningEvent: UnsafePointer<FluxEvent>?
    private let resolver: MixerResolver

    public override init(name: String? = nil, archive: Bool = false, bus: Flux = .shared) {
        resolver = MixerResolver(bus: bus)
        super.init(name: name, archive: archive, bus: bus)
        resolver.reference = reference
        registering = true
        defineMixers()
        registering = false
    }

    /// Override to ``define(mix:_:)`` the mixers this substance reacts to.
    open func defineMixers() {}

    /// Reacts to `mixer` with `body`, run on the bus as one transaction.
    ///
    /// Call it only from ``defineMixers()``.
    public func define(mix mixer: M, _ body: Mixer) {
        if let event = runningEvent {
            if runningMixer.pointee == mixer { run(body, event) }
        } else if registering {
            register(mixer)
        } else {
            register(mixer)
            bus.report(
                .reactorMisuse,
                "\(name()): define(mix: \(mixer)) called outside defineMixers(); its body will never run")
        }
    }

    private func register(_ mixer: M) {
        let isNew = observations.withLock { $0[mixer] == nil }
        guard isNew else { return }
        let observation = bus.observe(mixer.busName, owner: self) { substance, event in
            substance.dispatch(mixer, event)
        }
        observations.withLock { $0[mixer] = observation }
    }

    deinit {
        for observation in observations.withLock({ $0.values }) { observation.cancel() }
        runningMixer.deallocate()
    }

    private func dispatch(_ mixer: M, _ event: FluxEvent) {
        runningMixer.initialize(to: mixer)
        // The event is borrowed for the length of `defineMixers()`, not copied (its payload
        // dictionary would be retained and released on every dispatch).
        withUnsafePointer(to: event) { event in
            runningEvent = event
            defineMixers()
            runningEvent = nil
        }
        runningMixer.deinitialize(count: 1)
    }

    private func run(_ body: Mixer, _ event: UnsafePointer<FluxEvent>) {
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
                if let lock = event.pointee.lock { lock.handOver() }
                deliver(changes, lock: event.pointee.lock)
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
