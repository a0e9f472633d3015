import FluxBus
import Substances

// The spellings of Reactors that are not the canonical ones (docs/decisions.md, "One spelling per
// operation"): the seed's aliases, which stay as the seed's API, and the deprecated ones, each with
// a fix-it to the canonical spelling.

// MARK: The seed's aliases of a chain's operations

extension ChainReaction {
    /// The seed's alias of ``mix(_:_:)-(_,(T)->Void)``.
    @discardableResult
    public func mixing<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    /// The seed's alias of ``mix(_:_:)-(_,(T,ChainAbort)->Void)``, for a step that may abort the
    /// chain.
    @discardableResult
    public func mixing<S, T: Substance<S>>(
        _ substance: T, _ body: @escaping @Sendable (T, borrowing ChainAbort) -> Void
    ) -> ChainReaction {
        mix(substance, body)
    }

    /// The seed's alias of ``mix(_:_:)-(_,(T)->Void)``.
    @discardableResult
    public func with<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    /// The seed's alias of ``mix(_:_:)-(_,(T,ChainAbort)->Void)``, for a step that may abort the
    /// chain.
    @discardableResult
    public func with<S, T: Substance<S>>(
        _ substance: T, _ body: @escaping @Sendable (T, borrowing ChainAbort) -> Void
    ) -> ChainReaction {
        mix(substance, body)
    }

    /// The seed's alias of ``mix(_:_:)-(_,(T)->Void)``.
    @discardableResult
    public func and<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    /// The seed's alias of ``mix(_:_:)-(_,(T,ChainAbort)->Void)``, for a step that may abort the
    /// chain.
    @discardableResult
    public func and<S, T: Substance<S>>(
        _ substance: T, _ body: @escaping @Sendable (T, borrowing ChainAbort) -> Void
    ) -> ChainReaction {
        mix(substance, body)
    }

    /// The seed's alias of ``react(fileID:line:function:)``.
    public func andReact(fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function) {
        react(fileID: fileID, line: line, function: function)
    }

    /// The seed's alias of ``abort()``.
    public func andAbort() {
        abort()
    }

    /// Commits the chain, as ``react(fileID:line:function:)``, then calls `completion` on the bus
    /// after the reactions.
    @available(*, deprecated, message: "await reactAndWait(), which returns once the chain has been applied")
    public func react(
        completion: (@Sendable () -> Void)?, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) {
        let origin = FluxOrigin(fileID: fileID, line: line, function: function)
        if let completion { react(origin: origin, then: completion) } else { react(origin: origin, then: {}) }
    }

    /// Commits the chain, as ``react(fileID:line:function:)``, then calls `completion` on the bus
    /// after the reactions.
    @available(*, deprecated, message: "await reactAndWait(), which returns once the chain has been applied")
    public func andReact(
        completion: (@Sendable () -> Void)?, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) {
        let origin = FluxOrigin(fileID: fileID, line: line, function: function)
        if let completion { react(origin: origin, then: completion) } else { react(origin: origin, then: {}) }
    }

    /// Commits the chain and returns its outcome once applied: ``reactAndWait(fileID:line:function:)``, whose name says
    /// it waits ("commit" also names a substance's transaction and `commitState()`).
    @available(*, deprecated, renamed: "reactAndWait()")
    @discardableResult
    public func commit(
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> MixOutcome {
        await reactAndWait(fileID: fileID, line: line, function: function)
    }
}

extension Reactor {
    /// The seed's alias of ``mix(_:_:)-(_,(T)->Void)``.
    public func mixing<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    /// Removed: a reactor no longer learns which keys its handler asks for. Learning could not see
    /// a handler whose keys depend on anything but the commit, and skipped it in silence; a
    /// handler now runs for every commit, as the seed says. To be called only for some keys,
    /// declare them: ``keys``, or reactions declared with `on(_:fileID:line:_:)` with a string key.
    /// Reads false; setting it does nothing.
    @available(*, deprecated, message: "handlers run for every commit; declare keys with `keys` or `on(_:_:)`")
    public var learnsKeys: Bool {
        get { false }
        // swift-format-ignore
        set {}
    }
}

// MARK: The `delivery:` argument

// A reactor's handler runs on the bus; a UI owner's runs on the main actor through
// `mainActorHandler` (or `attachReactor(to:mixing:)` called from the main actor). The `delivery:`
// argument was a second route to the main thread, through the main queue.

extension ReactorManager {
    /// Creates a reactor whose ``Reactor/handler`` runs where `delivery` says.
    @available(*, deprecated, message: "a reactor's handler runs on the bus; for a UI owner, set mainActorHandler")
    public func reactor<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery
    ) -> Reactor<Owner> {
        makeReactor(attachedTo: owner, mixing: substances, delivery: delivery)
    }

    /// Attaches a reactor to a `Sendable` owner whose reactions call its
    /// `flaskReactions(reaction:)` where `delivery` says, whoever calls this: on the bus, or on
    /// the main queue. The conformance must not be isolated (the bus calls it from its thread).
    @available(*, deprecated, message: "attach from the isolation the reactions should run in, or set mainActorHandler")
    @discardableResult
    @_disfavoredOverload
    public func attachReactor<Owner: FlaskReactor & Sendable & SendableMetatype>(
        to owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery
    ) -> Reactor<Owner> {
        let reactor = makeReactor(attachedTo: owner, mixing: substances, delivery: delivery)
        reactor.handler = { owner, reaction in owner.flaskReactions(reaction: reaction) }
        return reactor
    }
}

extension Reactor where Owner: Sendable {
    /// Creates a reactor without a manager whose ``handler`` runs where `delivery` says.
    @available(*, deprecated, message: "a reactor's handler runs on the bus; for a UI owner, set mainActorHandler")
    public convenience init(owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery) {
        self.init(owner: owner, substances: substances, delivery: delivery, manager: nil)
    }
}
