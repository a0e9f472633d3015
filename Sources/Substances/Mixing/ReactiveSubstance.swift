import FlaskLocking
import FluxBus
import Synchronization

/// A substance that also reacts to global mixers and typed actions: the seed's "Fluxor style"
/// store.
///
/// Made as it is, with its mixers defined once as `@Sendable` bodies that receive the substance
/// (no subclass, nothing `@unchecked`: the compiler checks every body):
///
/// ```swift
/// enum EnvMixers: SubstanceMixer { case Login, Logout }
///
/// let app = ReactiveSubstance<AppState, EnvMixers>(name: "app") { define in
///     define(mix: .Login) { app, payload, react, abort in
///         app.prop.title = "signed"
///         react()
///     }
///     define(Rename.self) { app, action, react, abort in   // a typed action (FlaskAction)
///         app.prop.title = action.title
///         react()
///     }
/// }
/// ```
///
/// or, as the seed spells it, by a subclass that overrides ``defineMixers()``:
///
/// ```swift
/// final class AppReactiveSubstance: ReactiveSubstance<AppState, EnvMixers>, @unchecked Sendable {
///     override func defineMixers() {
///         define(mix: .Login) { payload, react, abort in
///             self.prop.title = "signed"
///             react()
///         }
///     }
/// }
/// ```
///
/// A subclass must restate `@unchecked Sendable`, and that switches off the compiler's check of
/// whatever the subclass adds: a stored `var` of a subclass is not protected by anything. Prefer
/// the first spelling, or keep a subclass free of stored mutable properties.
///
/// Each mixer is registered on the bus once per substance, however many reactors bind it, and goes
/// away with the substance. A mixer runs on the bus as one transaction: `react()` commits it and
/// reactors see the changes; `abort()` leaves the state exactly as it was.
///
/// In a subclass, mixer bodies are not stored: at creation `defineMixers()` runs once to learn
/// which mixers and actions the substance defines, and when one is dispatched it runs again, on the
/// bus, and executes the matching body. So a body may capture `self` without creating a reference
/// cycle, and a substance nobody references is freed. The rule that follows: `defineMixers()` only
/// calls `define`, the same ones every time (a `define` made only sometimes, or work done beside
/// the `define` calls, runs again at every dispatch). A mixer defined twice runs each of its
/// bodies, in order, each its own transaction.
///
/// Enum mixers are matched by value, associated values included: a case with associated values
/// (`case login(user: String)`) is reported where it is defined (`mixer-with-values`), since no
/// dispatch of another value would reach it. Carry data in a ``FlaskAction`` instead.
///
/// `@unchecked Sendable`: inherits ``Substance``'s reasoning; the mixer table is behind a lock, the
/// dispatch bookkeeping is `BusConfined` (touched in `init` before the bus can reach the
/// substance: its mixers are observed only once `defineMixers()` has run), and the registration
/// flag is atomic.
open class ReactiveSubstance<S: State, M: SubstanceMixer>: Substance<S>, @unchecked Sendable {
    /// A mixer body: the payload of the dispatch, and `react`/`abort` to resolve the transaction.
    public typealias Mixer = (_ payload: FluxPayload?, _ react: MixerResolution, _ abort: MixerResolution) -> Void
    /// An action's mixer: the action, and `react`/`abort` to resolve the transaction.
    public typealias ActionMixer<A: FlaskAction> =
        (_ action: A, _ react: MixerResolution, _ abort: MixerResolution) -> Void

    private let observations = LockedValue<[FluxMixerName: FluxObservation]>([:])
    /// The observations of the bodies given to `init(name:archive:archiveSettings:bus:mixers:)`.
    private let storedObservations = LockedValue<[FluxObservation]>([])
    /// What `define` needs to know while `defineMixers()` runs for a dispatch, in one property:
    /// each property of a generic class is found through its metadata.
    @usableFromInline final let definition: BusConfined<DefineMixersRun>
    /// True while `init` runs `defineMixers()` to learn the mixers.
    @usableFromInline let registering = Atomic<Bool>(false)
    /// The mixers and actions `init` learned, in the order of their first definition: used only by
    /// `init`, on its thread, before the bus can reach the substance.
    @exclusivity(unchecked) private final var learned: [Learned] = []
    @usableFromInline let resolver: MixerResolver

    private enum Learned {
        case mixer(M)
        case action(FluxMixerName)
    }

    /// Creates the substance and learns the mixers and actions `defineMixers()` defines (see
    /// ``Substance/init(name:archive:archiveSettings:bus:)``).
    public override init(
        name: String? = nil, archive: Bool = false, archiveSettings: ArchiveSettings = ArchiveSettings(),
        bus: Flux = .current
    ) {
        resolver = MixerResolver(bus: bus)
        definition = BusConfined(
            DefineMixersRun(), on: bus,
            "a ReactiveSubstance's define calls after init (only the substance calls defineMixers(), on its bus)")
        super.init(name: name, archive: archive, archiveSettings: archiveSettings, bus: bus)
        resolver.name(reference)
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

    /// Creates a substance whose mixers and actions are defined here, once, without a subclass:
    /// each body is `@Sendable` and receives the substance (see ``MixerDefinitions``).
    ///
    /// ```swift
    /// let app = ReactiveSubstance<AppState, EnvMixers>(name: "app") { define in
    ///     define(mix: .Login) { app, payload, react, abort in
    ///         app.prop.title = "signed"
    ///         react()
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: the substance's name (see ``Substance/init(name:archive:archiveSettings:bus:)``).
    ///   - archive: whether it archives its state.
    ///   - archiveSettings: where and when it archives (see ``ArchiveSettings``).
    ///   - bus: the bus it mixes on.
    ///   - mixers: defines the mixers and actions it reacts to; called once, before this returns.
    public convenience init(
        name: String? = nil, archive: Bool = false, archiveSettings: ArchiveSettings = ArchiveSettings(),
        bus: Flux = .current, mixers: (_ define: inout MixerDefinitions<S, M>) -> Void
    ) {
        self.init(name: name, archive: archive, archiveSettings: archiveSettings, bus: bus)
        var definitions = MixerDefinitions<S, M>()
        mixers(&definitions)
        for group in definitions.byName() { register(group.name, mixer: group.mixer, runs: group.runs) }
    }

    /// Override to ``define(mix:_:)`` the mixers, and ``define(_:_:)`` the actions, this substance
    /// reacts to. It runs at creation and again at every dispatch (see the type's notes): only
    /// call `define`, the same ones every time.
    ///
    /// Never call it yourself: the substance calls it, on its bus, for a dispatch. To run a mixer
    /// from a reaction, dispatch it: it runs after the delivery. Called from a reaction on the
    /// bus, it runs no body (that would commit inside the delivery of this substance's commit),
    /// and is reported as `substance-misuse`. Called from a main-actor reaction or any other
    /// thread, it races with the bus: debug builds trap at its first `define`, release builds
    /// report it when the bus is idle.
    open func defineMixers() {}

    /// Reacts to `mixer` with `body`, run on the bus as one transaction.
    ///
    /// Call it only from ``defineMixers()``.
    // Inlined where `defineMixers()` is written, as the action spelling is: a dispatch passes every
    // other definition with a counter and a comparison (`skipsDefinition()`), without a call into
    // generic code that looks at the mixer; the running one is compared with the mixer's own
    // `==`, specialized, and its body called in place rather than through a closure context
    // (scenarios S1, S2: docs/performance.md).
    @inlinable @inline(__always)
    public final func define(mix mixer: M, _ body: Mixer) {
        if skipsDefinition() { return }
        guard let event = runsMixerBody(mixer) else { return }
        let serial = beginRun()
        body(
            event.pointee.payload, MixerResolution(resolver: resolver, serial: serial, commits: true),
            MixerResolution(resolver: resolver, serial: serial, commits: false))
        endRun(event)
    }

    /// Where `defineMixers()` runs for a dispatch: counts this definition, and returns true when it
    /// is not the one at the running mixer's position (it is then passed without looking at it).
    /// False at the position, when every definition is compared, and outside a dispatch's run.
    // Inlined into `define(mix:)`, so into the subclass's `defineMixers()`: not a call per
    // definition (scenarios S2, S3, S3d).
    @inlinable @inline(__always)
    final func skipsDefinition() -> Bool {
        !registering.load(ordering: .relaxed) && definition.value.skipsNext()
    }

    /// The running dispatch's event when `mixer` is the mixer it runs (the definition was not
    /// skipped): its body is to run now. Nil otherwise, after ``passDefinition(mix:)``.
    @inlinable @inline(__always)
    final func runsMixerBody(_ mixer: M) -> UnsafePointer<FluxEvent>? {
        if !registering.load(ordering: .relaxed), let event = definition.value.runningEvent,
            let running = definition.value.runningMixer, running.assumingMemoryBound(to: M.self).pointee == mixer
        {
            return bodyRuns(event, named: mixer.busName)
        }
        passDefinition(mix: mixer)
        return nil
    }

    /// A `define(mix:)` whose body does not run now: learns the mixer while `init` runs,
    /// registers and reports one defined outside `defineMixers()`, and passes one that is not the
    /// running mixer.
    @usableFromInline
    final func passDefinition(mix mixer: M) {
        // `init` learns the mixers first, on its thread, before the bus can reach the substance;
        // after that the definitions are read on the bus only (a debug build traps elsewhere).
        if registering.load(ordering: .relaxed) {
            learn(mixer)
        } else if definition.value.runningEvent == nil {
            definedOutsideRun("define(mix: \(mixer.busName))") { register(mixer, position: nil) }
        }
    }

    /// Reacts to actions of type `A` with `body`, run on the bus as one transaction.
    ///
    /// Call it only from ``defineMixers()``.
    // Always inlined where `defineMixers()` is written: the work that depends on `A` is then
    // specialized (called generically, it would look up the metadata of `A?` and of the body's
    // type at every dispatch), and the body, which captures `self`, is called in place (made into
    // a closure, it would retain and release the substance, whose weak references put that on the
    // runtime's slow path).
    @inlinable @inline(__always)
    public final func define<A: FlaskAction>(_ action: A.Type, _ body: ActionMixer<A>) {
        guard let event = runsActionBody(ObjectIdentifier(A.self), named: A.busName) else { return }
        guard let action = event.pointee.value(as: A.self) else { return reportMissingAction(named: A.busName) }
        let serial = beginRun()
        body(
            action, MixerResolution(resolver: resolver, serial: serial, commits: true),
            MixerResolution(resolver: resolver, serial: serial, commits: false))
        endRun(event)
    }

    /// What a `define` of the action type `id` does where it stands in `defineMixers()`: learns it
    /// while `init` runs, registers and reports it outside a run, and returns the dispatch's event
    /// when it is the running action's definition, whose body must run now (nil otherwise).
    @usableFromInline
    final func runsActionBody(_ id: ObjectIdentifier, named name: FluxMixerName) -> UnsafePointer<FluxEvent>? {
        if registering.load(ordering: .relaxed) {
            learn(action: name)
            return nil
        }
        guard let event = definition.value.runningEvent else {
            definedOutsideRun("define(\(name).self)") { registerAction(name, position: nil) }
            return nil
        }
        guard !definition.value.skipsNext(), definition.value.runningAction == id else { return nil }
        return bodyRuns(event, named: name)
    }

    /// A definition that matched the running dispatch: returns its event, whose body runs now,
    /// unless this substance is delivering a commit (a reaction called `defineMixers()`, and a
    /// body run now would commit inside that delivery): reported, nil.
    @inlinable @inline(__always)
    final func bodyRuns(
        _ event: UnsafePointer<FluxEvent>, named name: @autoclosure () -> FluxMixerName
    ) -> UnsafePointer<FluxEvent>? {
        guard !isDelivering else {
            reportDefineMixersCalled("while a commit of \(name()) was delivered (by a reaction?)")
            return nil
        }
        definition.value.ranBody = true
        return event
    }

    /// A `define` reached after `init` outside a dispatch's run: on the bus (called outside
    /// `defineMixers()`), registered and reported; off the bus (`defineMixers()` called by code
    /// other than the substance's, a main-actor reaction say), or while a commit no dispatch made
    /// is delivered (a reaction to a chain's step), only reported.
    private final func definedOutsideRun(_ call: String, register: () -> Void) {
        guard bus.isCurrent else {
            return reportDefineMixersCalled("off the bus (\(call) reached from a main-actor reaction?)")
        }
        guard !isDelivering else { return reportDefineMixersCalled("while its commit was delivered (by a reaction?)") }
        register()
        bus.report(.substanceMisuse, "\(nameInReports): \(call) called outside defineMixers(); its body will never run")
    }

    /// Reports `defineMixers()` called by code other than the substance's, in `circumstance`: no
    /// body ran.
    @usableFromInline @inline(never)
    final func reportDefineMixersCalled(_ circumstance: String) {
        bus.report(
            .substanceMisuse,
            "\(nameInReports): defineMixers() was called \(circumstance); only the substance calls it, on its bus, "
                + "for a dispatch, so no body ran: dispatch the mixer instead")
    }

    /// Reports an action that arrived without the value its type needs (a middleware replaced
    /// the mix with a mixer of that name, say).
    @usableFromInline
    final func reportMissingAction(named name: FluxMixerName) {
        bus.report(
            .substanceMisuse, "\(nameInReports): an action of type \(name) arrived without its value; it was ignored")
    }

    /// Learns a mixer while `init` runs `defineMixers()`. Out of line: naming `Learned`, a type
    /// nested in this generic class, looks its metadata up at run time, and a `define` call that
    /// named it did so at every dispatch.
    @inline(never)
    private final func learn(_ mixer: M) {
        learn(.mixer(mixer)) { if case .mixer(let other) = $0 { other == mixer } else { false } }
    }

    /// Learns an action while `init` runs `defineMixers()` (out of line, as ``learn(_:)``).
    @inline(never)
    private final func learn(action name: FluxMixerName) {
        learn(.action(name)) { if case .action(let other) = $0 { other == name } else { false } }
    }

    /// Learns a definition; a second one of the same mixer only makes dispatches compare every
    /// definition.
    private final func learn(_ definition: Learned, equal: (Learned) -> Bool) {
        if learned.contains(where: equal) {
            // Only while `init` runs `defineMixers()`, before the bus can reach the substance.
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
        if MixerValues.has(mixer) { reportMixerWithValues(name) }
        let position = position ?? -1
        let stored = StoredMixer(mixer)
        // The owner is this substance: cast without a check.
        let observation = bus.observe(name, untypedOwner: self) { substance, event in
            unsafeDowncast(substance, to: ReactiveSubstance.self).dispatch(stored.address, at: position, event)
        }
        observations.withLock { $0[name] = observation }
    }

    /// Observes `name` on the bus with stored bodies: a dispatch runs them in order.
    private final func register(_ name: FluxMixerName, mixer: M?, runs: [MixerDefinitions<S, M>.Run]) {
        if let mixer, MixerValues.has(mixer) { reportMixerWithValues(name) }
        let observation: FluxObservation
        if runs.count == 1, let run = runs.first {
            observation = bus.observe(name, untypedOwner: self) { substance, event in
                run(unsafeDowncast(substance, to: ReactiveSubstance.self), event)
            }
        } else {
            observation = bus.observe(name, untypedOwner: self) { substance, event in
                let substance = unsafeDowncast(substance, to: ReactiveSubstance.self)
                for run in runs { run(substance, event) }
            }
        }
        storedObservations.withLock { $0.append(observation) }
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

    private final func reportMixerWithValues(_ name: FluxMixerName) {
        bus.report(
            .mixerWithValues,
            "\(nameInReports): define(mix: \(name)): a mixer case with associated values is matched with its values "
                + "too, so a dispatch of other values never reaches it; carry data in a FlaskAction")
    }

    deinit {
        for observation in observations.withLock({ $0.values }) { observation.cancel() }
        for observation in storedObservations.withLock({ $0 }) { observation.cancel() }
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
    @inline(__always)
    private final func runDefinitions() {
        defineMixers()
        if definition.value.mustCompareAll() {
            // `defineMixers()` defined its mixers in another order than at registration: look at
            // every definition.
            defineMixers()
        }
        definition.value.finish()
    }

    /// Opens the transaction of a body: returns the serial of its `react` and `abort`.
    @usableFromInline @inline(__always)
    final func beginRun() -> UInt64 {
        beginTransaction()
        return resolver.begin()
    }

    /// Resolves the transaction of the body that just returned: commits and delivers on `react()`,
    /// discards on `abort()` or neither (reported).
    /// ``endRun(_:)`` for a body given its event (a stored body of `MixerDefinitions`): lent to the
    /// commit where it lies, for as long as the commit is delivered.
    @usableFromInline @inline(__always)
    final func endRun(event: borrowing FluxEvent) {
        withUnsafePointer(to: event) { endRun($0) }
    }

    /// The dispatch's event is where the dispatch keeps it, for as long as the commit is delivered:
    /// the commit reads its source there (`Commit.mix`).
    @usableFromInline @inline(__always)
    final func endRun(_ event: UnsafePointer<FluxEvent>) {
        let lock = event.pointee.lock
        let outcome = resolver.end()
        switch outcome {
        case true?:
            if let changes = commitTransaction(event: event) {
                // A reactor whose handler receives the lock takes it over (`FlaskReaction`); if
                // none does, the bus releases it once the mix has run. While the commit is
                // delivered, every definition is compared: a `defineMixers()` that a reaction
                // calls then reaches the running mixer's definition, which refuses its body and
                // reports the call, where by position it would pass every definition silently.
                // (The changes consumed, as the last statement would: kept alive past the call,
                // they were retained and released around it.)
                let position = definition.value.compareEveryDefinition()
                deliver(consume changes, lock: lock)
                definition.value.runningPosition = position
            }
        case false?:
            abortTransaction()
        case nil:
            abortTransaction()
            bus.report(
                .mixerUnresolved,
                "\(nameInReports): mixer \(event.pointee.mixer) returned without react() or abort(); it was aborted"
                    + (event.pointee.origin.map { " (dispatched from \($0))" } ?? ""))
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
@usableFromInline
struct DefineMixersRun {
    /// The mixer being dispatched (an `M`), or the type of the action being dispatched, and its
    /// event, while `defineMixers()` runs for it.
    @usableFromInline var runningMixer: UnsafeRawPointer?
    var runningAction: ObjectIdentifier?
    @usableFromInline var runningEvent: UnsafePointer<FluxEvent>?
    /// Where in `defineMixers()` the running mixer is defined (its position among the `define`
    /// calls, learned at registration), or -1 to compare every definition with it, and outside a
    /// dispatch's run.
    @usableFromInline var runningPosition = -1
    /// The position of the next `define` call.
    @usableFromInline var nextPosition = 0
    /// Whether a definition matched the running mixer.
    @usableFromInline var ranBody = false
    /// Whether `defineMixers()` defines a mixer twice (then every definition is compared).
    var definesTwice = false

    /// Counts a definition while `defineMixers()` runs for a dispatch, and returns true when it
    /// is not the one at the running mixer's position (it is then passed without looking at it).
    /// False at the position, when every definition is compared, and outside a dispatch's run.
    @inlinable @inline(__always)
    mutating func skipsNext() -> Bool {
        // Outside a run by position nothing is counted: positions matter only there, and a
        // `define` called outside a dispatch (a misuse) writes nothing.
        guard runningPosition >= 0 else { return false }
        let position = nextPosition
        nextPosition = position &+ 1
        return position != runningPosition
    }

    /// Makes the definitions reached from now on compared with the running mixer rather than
    /// passed by position (for the length of a delivery); returns the position to restore.
    mutating func compareEveryDefinition() -> Int {
        let position = runningPosition
        runningPosition = -1
        return position
    }

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
        runningPosition = -1
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
