import FluxBus

/// A typed action: a struct (or any `Sendable` type) that a ``ReactiveSubstance`` reacts to, the
/// data it carries typed, instead of an enum mixer and a payload dictionary.
///
/// ```swift
/// struct Login: FlaskAction {
///     let user: String
/// }
///
/// let session = ReactiveSubstance<SessionState, SessionMixers>(name: "session") { define in
///     define(Login.self) { session, action, react, abort in
///         guard !action.user.isEmpty else { return abort() }
///         session.prop.user = action.user
///         react()
///     }
/// }
///
/// Flask.substances(reactTo: Login(user: "ada"))
/// ```
///
/// An action goes through the same bus as an enum mixer, in the same FIFO order, through the same
/// middleware (which find it in `FluxEvent.value`), journal (recorded by type name, with its fields
/// when it is `Codable`) and locks (`Flask.lock(withMixer: Login(user: "ada"))`). Every reactive
/// substance that defines the action's type receives it, whatever its mixer enumeration.
///
/// An action without stored properties (`struct Refresh: FlaskAction {}`) is carried inline, with
/// no allocation; one with more data than fits in three words allocates one small object per
/// dispatch, less than a payload dictionary.
///
/// Fields a journal must never show (a password) are named in ``secretKeys``, as a state's are:
///
/// ```swift
/// struct SignIn: FlaskAction, Codable {
///     let user: String
///     let password: String
///     static var secretKeys: Set<String> { ["password"] }
/// }
/// ```
public protocol FlaskAction: Sendable {
    /// The fields whose values no text the package writes ever shows: a journal records them as
    /// redacted (and so cannot replay the action from its file: a replay says why instead of
    /// replaying a wrong value). Named as a state's secret keys are (``State/secretKeys``). None by
    /// default.
    static var secretKeys: Set<String> { get }
}

extension FlaskAction {
    /// No secret fields.
    public static var secretKeys: Set<String> { [] }

    /// The name the bus knows this action type by: the type itself.
    @inlinable
    public static var busName: FluxMixerName { FluxMixerName("", domain: Self.self) }
}

extension Flux {
    /// Dispatches a global mixer on the main lane: every reactive substance of this bus that
    /// defines it reacts to it (`Flask.substances(reactTo:payload:on:)` in short). `fileID`,
    /// `line` and `function` say where it was dispatched from (`FluxEvent.origin`, a commit's
    /// `origin`): leave the defaults.
    public func dispatch<M: SubstanceMixer>(
        _ mixer: M, payload: FluxPayload? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) {
        dispatch(mixer.busName, payload: payload, fileID: fileID, line: line, function: function)
    }

    /// Dispatches `action` on the main lane: every reactive substance of this bus that defines its
    /// type reacts to it.
    // Inlinable, so that what depends on `A` is decided where the action is dispatched.
    @inlinable
    public func dispatch<A: FlaskAction>(
        _ action: A, fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) {
        // Always carried, even without stored properties: the receiver gets the value that was
        // dispatched, never one made up from its type.
        dispatch(A.busName, typedValue: action, origin: FluxOrigin(fileID: fileID, line: line, function: function))
    }

    /// Dispatches a global mixer and suspends until it has been applied and its bus reactions
    /// delivered; returns what each substance did (`Flask.apply(_:payload:on:isolation:)` in
    /// short).
    @inlinable
    @discardableResult
    public func apply<M: SubstanceMixer>(
        _ mixer: M, payload: FluxPayload? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function, isolation: isolated (any Actor)? = #isolation
    ) async -> MixOutcome {
        MixOutcome(
            receipt: await dispatchAndWait(
                mixer.busName, payload: payload, fileID: fileID, line: line, function: function, isolation: isolation))
    }

    /// Dispatches `action` and suspends until it has been applied and its bus reactions delivered;
    /// returns what each substance did (`Flask.apply(_:on:isolation:)` in short).
    @inlinable
    @discardableResult
    public func apply<A: FlaskAction>(
        _ action: A, fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
        isolation: isolated (any Actor)? = #isolation
    ) async -> MixOutcome {
        MixOutcome(
            receipt: await dispatchAndWait(
                A.busName, value: action, fileID: fileID, line: line, function: function, isolation: isolation))
    }
}
