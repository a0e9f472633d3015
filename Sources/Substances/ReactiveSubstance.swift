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
/// `@unchecked Sendable`: inherits ``Substance``'s reasoning; the mixer table is behind a mutex and
/// the transaction bookkeeping is touched only on the bus.
open class ReactiveSubstance<S: State, M: SubstanceMixer>: Substance<S>, MixerTransaction, @unchecked Sendable {
    /// A mixer: the payload of the dispatch, and `react`/`abort` to resolve the transaction.
    public typealias Mixer = @Sendable (_ payload: FluxPayload?, _ react: MixerResolution, _ abort: MixerResolution) -> Void

    private let definitions = Mutex<[String: FluxObservation]>([:])
    @exclusivity(unchecked) private var transactionSerial: UInt64 = 0
    @exclusivity(unchecked) private var resolution: Bool?

    public override init(name: String? = nil, archive: Bool = false, bus: Flux = .shared) {
        super.init(name: name, archive: archive, bus: bus)
        defineMixers()
    }

    /// Override to ``define(mix:_:)`` the mixers this substance reacts to. Called once, at creation.
    open func defineMixers() {}

    /// Reacts to `mixer` with `body`. Defining the same mixer again replaces the earlier body.
    public func define(mix mixer: M, _ body: @escaping Mixer) {
        let name = FluxMixerName(mixer.mixerName, domain: M.self)
        let observation = bus.observe(name, owner: self) { substance, event in
            substance.run(body, event)
        }
        let replaced = definitions.withLock { $0.updateValue(observation, forKey: mixer.mixerName) }
        replaced?.cancel()
    }

    deinit {
        for observation in definitions.withLock({ $0.values }) { observation.cancel() }
    }

    private func run(_ body: Mixer, _ event: FluxEvent) {
        beginTransaction()
        transactionSerial &+= 1
        resolution = nil
        let serial = transactionSerial
        body(
            event.payload,
            MixerResolution(transaction: self, serial: serial, commits: true),
            MixerResolution(transaction: self, serial: serial, commits: false))
        let outcome = resolution
        transactionSerial &+= 1
        switch outcome {
        case true?:
            if let changes = commitTransaction() {
                if let lock = event.lock { lock.handOver() }
                deliver(changes, lock: event.lock)
            }
        case false?:
            abortTransaction()
        case nil:
            abortTransaction()
            bus.report(
                .mixerUnresolved,
                "\(name()): mixer \(event.mixer) returned without react() or abort(); it was aborted")
        }
    }

    func resolve(serial: UInt64, commit: Bool) {
        guard bus.isCurrent, serial == transactionSerial, resolution == nil else {
            bus.report(
                .mixerResolvedLate,
                "\(name()): \(commit ? "react()" : "abort()") called after the mixer returned or twice; ignored")
            return
        }
        resolution = commit
    }
}
