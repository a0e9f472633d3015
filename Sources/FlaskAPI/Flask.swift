import Foundation

/// The static facade of Flask: the high-level and low-level API of the seed, on the current bus
/// (the shared one, or the one ``withBus(_:operation:)-(_,()->Result)`` sets).
///
/// ```swift
/// let reactor = Flask.reactor(attachedTo: screen, mixing: feed)
/// reactor.mainActorHandler = { screen, reaction in
///     reaction.on("counter") { change in screen.label = "\(change.newValue() as Int? ?? 0)" }
/// }
/// Flask.substances(reactTo: EnvMixers.Login, payload: ["username": "foo"])
/// reactor.mix(feed) { $0.prop.counter = 10 }.react()
/// ```
///
/// Each operation has one spelling (docs/decisions.md, "One spelling per operation"); the seed's
/// (`attachReactor(to:mixing:)`, `getReactor(attachedTo:)`, `mixing`, `andReact`) compile too.
public enum Flask {
    /// The bus every facade call and every new substance uses unless given another: the one
    /// ``withBus(_:operation:)-(_,()->Result)`` set around the running code (a test, an
    /// independent part of an app), else the shared one (`Flux.current`).
    public static var bus: Flux { .current }

    /// Runs `operation` with `bus` as ``bus``: the facade calls inside that are given no bus, and
    /// the substances made inside, use it; so a test that makes its own bus runs beside others
    /// without sharing their state.
    ///
    /// ```swift
    /// @Test func counterCounts() async {
    ///     await Flask.withBus(Flux()) {
    ///         let counter = makeCounter()  // on the test's bus
    ///         await Flask.apply(CounterMixers.increment)  // dispatched on it
    ///         #expect(counter.state.counter == 1)
    ///     }
    /// }
    /// ```
    ///
    /// The bus follows the code into the synchronous calls it makes, its child tasks and the tasks
    /// it starts with `Task { }` (a task-local value, `Flux.current`); a detached task, a
    /// `DispatchQueue` block and a thread started inside do not see it.
    public static func withBus<Result>(_ bus: Flux, operation: () throws -> Result) rethrows -> Result {
        try Flux.withCurrent(bus, operation: operation)
    }

    /// Runs `operation`, async, with `bus` as ``bus`` (see ``withBus(_:operation:)-(_,()->Result)``).
    public static func withBus<Result>(
        _ bus: Flux, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> Result
    ) async rethrows -> Result {
        try await Flux.withCurrent(bus, isolation: isolation, operation: operation)
    }

    /// The manager holding the attached reactors.
    public static var reactorManager: ReactorManager { .shared }

    /// An explicit nil inside a `FlaskDictRef`.
    public static let Nil = FlaskNull()
    /// An explicit nil inside a `FlaskDictRef` (the seed's second spelling).
    public static let Null = FlaskNull()

    /// The handler of misuse and bad-input reports (``bus``'s: the shared bus's, unless inside
    /// ``withBus(_:operation:)-(_,()->Result)``). Prints in debug builds, silent in release builds.
    public static var diagnostics: @Sendable (FluxDiagnostic) -> Void {
        get { bus.diagnostics }
        set { bus.diagnostics = newValue }
    }

    // MARK: Reactors

    /// Creates a reactor attached to `owner` and bound to `substances`; set its `handler` (runs
    /// on the bus) or its `mainActorHandler` (runs on the main actor).
    ///
    /// The owner must be `Sendable`, since a handler receives it on the bus's thread: a
    /// `@MainActor` class (every view and view controller; give it a `mainActorHandler`), a class
    /// of immutable or lock-guarded state, or an actor. A plain class is refused by the compiler
    /// ("type 'Screen' does not conform to the 'Sendable' protocol").
    public static func reactor<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substances: [any AnySubstance]
    ) -> Reactor<Owner> {
        reactorManager.reactor(attachedTo: owner, mixing: substances)
    }

    /// Creates a reactor attached to `owner` and bound to one substance.
    public static func reactor<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substance: any AnySubstance
    ) -> Reactor<Owner> {
        reactor(attachedTo: owner, mixing: [substance])
    }

    /// Not a spelling: several substances are passed as an array, `mixing: [a, b]`. Declared so
    /// that `mixing: a, b` is refused with that advice, rather than with an error about the
    /// deprecated `delivery:` spelling.
    @available(*, unavailable, message: "pass several substances as an array: mixing: [a, b]")
    public static func reactor<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing first: any AnySubstance, _ second: any AnySubstance,
        _ more: any AnySubstance...
    ) -> Reactor<Owner> {
        reactor(attachedTo: owner, mixing: [first, second] + more)
    }

    /// Attaches a reactor to a `FlaskReactor` owner: its `flaskReactions(reaction:)` receives the
    /// reactions where this is called from, on the main actor from the main actor (a view
    /// controller's `@MainActor` conformance included), on the bus from nonisolated code (the owner
    /// then must be `Sendable`).
    @discardableResult
    public static func attachReactor<Owner: FlaskReactor>(
        to owner: sending Owner, mixing substances: [any AnySubstance],
        isolation: isolated (any Actor)? = #isolation
    ) -> Reactor<Owner> {
        reactorManager.attachReactor(to: owner, mixing: substances, isolation: isolation)
    }

    /// Not a spelling: the substances are passed as an array, `mixing: [a]` or `mixing: [a, b]`.
    /// Declared so that `mixing: a` and `mixing: a, b` are refused with that advice, rather than
    /// with an error about the deprecated `delivery:` spelling.
    @available(*, unavailable, message: "pass the substances as an array: mixing: [a, b]")
    @discardableResult
    public static func attachReactor<Owner: FlaskReactor>(
        to owner: sending Owner, mixing first: any AnySubstance, _ more: any AnySubstance...,
        isolation: isolated (any Actor)? = #isolation
    ) -> Reactor<Owner> {
        attachReactor(to: owner, mixing: [first] + more, isolation: isolation)
    }

    /// Detaches every reactor of `owner`. Detaching an owner that has none is reported, on `bus`,
    /// with the caller's file and line.
    ///
    /// - Parameters:
    ///   - owner: the object the reactors are attached to.
    ///   - bus: where a misuse is reported when the owner has no reactor (and so no bus of its own).
    ///   - fileID: where it is called, for the report; leave the default.
    ///   - line: where it is called; leave the default.
    public static func detachReactor(
        from owner: AnyObject, on bus: Flux = .current, fileID: StaticString = #fileID, line: UInt = #line
    ) {
        if reactorManager.detach(from: owner) == 0 {
            bus.report(
                .reactorMisuse,
                "detachReactor(from: \(type(of: owner))) at \(fileID):\(line): this owner has no reactor attached")
        }
    }

    /// The reactor attached to `owner`.
    ///
    /// With none, this is reported (on `bus`) and an unbound reactor is returned (its chains still
    /// mix); with several, this is reported on their bus and the oldest is returned. Reports name
    /// the caller's file and line.
    ///
    /// - Parameters:
    ///   - owner: the object the reactor is attached to.
    ///   - bus: where a misuse is reported when the owner has no reactor (and so no bus of its own).
    ///   - fileID: where it is called, for reports; leave the default.
    ///   - line: where it is called; leave the default.
    public static func getReactor<Owner: AnyObject>(
        attachedTo owner: Owner, on bus: Flux = .current, fileID: StaticString = #fileID, line: UInt = #line
    ) -> Reactor<Owner> {
        let mine = reactorManager.reactors(of: owner).compactMap { $0 as? Reactor<Owner> }
        let place = "\(fileID):\(line)"
        let oldest = mine.min(by: { $0.serial < $1.serial })
        if let oldest, mine.count > 1 {
            oldest.bus.report(
                .reactorMisuse,
                "getReactor(attachedTo: \(Owner.self)) at \(place): \(mine.count) reactors are attached; using one")
        }
        if let oldest { return oldest }
        bus.report(
            .reactorMisuse,
            "getReactor(attachedTo: \(Owner.self)) at \(place): no reactor is attached; returning an unbound one")
        return Reactor(owner: owner, substances: [], delivery: .bus, manager: nil)
    }

    /// Alias of `getReactor(attachedTo:)` (the seed lists both spellings).
    public static func getReactor<Owner: AnyObject>(
        at owner: Owner, on bus: Flux = .current, fileID: StaticString = #fileID, line: UInt = #line
    ) -> Reactor<Owner> {
        getReactor(attachedTo: owner, on: bus, fileID: fileID, line: line)
    }

    // MARK: Mixing

    /// Dispatches a global mixer to every reactive substance of `bus` that defines it.
    ///
    /// - Parameters:
    ///   - mixer: the mixer.
    ///   - payload: handed to every mixer body.
    ///   - bus: the bus to dispatch on: the shared one unless you isolate (a bus per test, say).
    ///   - fileID: where it is dispatched from (`FluxEvent.origin`, `Commit.origin`); leave the default.
    ///   - line: where it is dispatched from; leave the default.
    ///   - function: where it is dispatched from; leave the default.
    public static func substances<M: SubstanceMixer>(
        reactTo mixer: M, payload: FluxPayload? = nil, on bus: Flux = .current, fileID: StaticString = #fileID,
        line: UInt = #line, function: StaticString = #function
    ) {
        bus.dispatch(mixerName(mixer), payload: payload, fileID: fileID, line: line, function: function)
    }

    /// Dispatches a typed action to every reactive substance of `bus` that defines its type.
    @inlinable
    public static func substances<A: FlaskAction>(
        reactTo action: A, on bus: Flux = .current, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) {
        bus.dispatch(action, fileID: fileID, line: line, function: function)
    }

    /// Dispatches a global mixer and suspends until it has been applied and its bus reactions
    /// delivered; returns what each substance did (committed changes, nothing, or aborted).
    ///
    /// The fire-and-forget `substances(reactTo:payload:on:)` stays the cheaper call when you do not
    /// need to wait.
    @discardableResult
    public static func apply<M: SubstanceMixer>(
        _ mixer: M, payload: FluxPayload? = nil, on bus: Flux = .current, fileID: StaticString = #fileID,
        line: UInt = #line, function: StaticString = #function, isolation: isolated (any Actor)? = #isolation
    ) async -> MixOutcome {
        await bus.apply(mixer, payload: payload, fileID: fileID, line: line, function: function, isolation: isolation)
    }

    /// Dispatches a typed action and suspends until it has been applied and its bus reactions
    /// delivered; returns what each substance did.
    @discardableResult
    public static func apply<A: FlaskAction>(
        _ action: A, on bus: Flux = .current, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function, isolation: isolated (any Actor)? = #isolation
    ) async -> MixOutcome {
        await bus.apply(action, fileID: fileID, line: line, function: function, isolation: isolation)
    }

    /// The bus name of a mixer.
    public static func mixerName<M: SubstanceMixer>(_ mixer: M) -> FluxMixerName {
        mixer.busName
    }

    // MARK: Substances

    /// Creates an unnamed substance of a state type, mixed on `bus`.
    public static func newSubstance<S: State>(definedBy type: S.Type, on bus: Flux = .current) -> Substance<S> {
        Substance<S>(bus: bus)
    }

    /// Creates a named substance, restoring its archive when `archive` is true.
    public static func newSubstance<S: State>(
        definedBy type: S.Type, named name: String, archive: Bool = false, on bus: Flux = .current
    ) -> Substance<S> {
        Substance<S>(name: name, archive: archive, bus: bus)
    }

    // MARK: Locks and the queue

    /// Pauses the bus's main lane until the lock is released.
    ///
    /// - Parameters:
    ///   - bus: the bus to pause: the shared one unless you isolate.
    ///   - fileID: where the lock was taken, for lock reports; leave the default.
    ///   - line: where the lock was taken; leave the default.
    public static func lock(on bus: Flux = .current, fileID: StaticString = #fileID, line: UInt = #line) -> FluxLock {
        bus.lock(fileID: fileID, line: line)
    }

    /// Pauses the main lane and dispatches `mixer` exclusively; the lock reaches the reactions as
    /// `reaction.onLock` for them to release. With `autorelease`, a mix that gives no reaction
    /// releases it by itself.
    ///
    /// - Parameters:
    ///   - mixer: the mixer to run on the exclusive lane.
    ///   - payload: handed to its bodies.
    ///   - autorelease: release the lock by itself when the mix gives no reaction.
    ///   - bus: the bus: the shared one unless you isolate.
    ///   - fileID: where the lock was taken, for lock reports; leave the default.
    ///   - line: where the lock was taken; leave the default.
    ///   - function: where the lock was taken; leave the default.
    @discardableResult
    public static func lock<M: SubstanceMixer>(
        withMixer mixer: M, payload: FluxPayload? = nil, autorelease: Bool = true, on bus: Flux = .current,
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) -> FluxLock {
        bus.lock(
            withMixer: mixerName(mixer), payload: payload, autorelease: autorelease, fileID: fileID, line: line,
            function: function)
    }

    /// Pauses the main lane and dispatches `action` exclusively (see
    /// ``lock(withMixer:payload:autorelease:on:fileID:line:function:)``).
    @discardableResult
    public static func lock<A: FlaskAction>(
        withMixer action: A, autorelease: Bool = true, on bus: Flux = .current,
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) -> FluxLock {
        bus.lock(
            withMixer: A.busName, value: action, autorelease: autorelease, fileID: fileID, line: line,
            function: function)
    }

    /// Releases every lock of `bus`.
    public static func removeLocks(on bus: Flux = .current) { bus.removeLocks() }

    /// Drops every queued work item of `bus` that has not started.
    public static func purgeFluxQueue(on bus: Flux = .current) { bus.purge() }

    /// Detaches every reactor of `bus` (whose substances mix on it): of the shared bus, or of the
    /// one ``withBus(_:operation:)-(_,()->Result)`` set, so that a test on a bus of its own detaches
    /// its reactors only. `ReactorManager.shared.removeAll()` detaches every reactor of the process.
    public static func purgeFlasks(on bus: Flux = .current) { reactorManager.removeAll(on: bus) }
}
