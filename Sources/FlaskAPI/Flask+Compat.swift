// The spellings of the facade that are not the canonical ones (docs/decisions.md, "One spelling
// per operation"), each deprecated with a fix-it or a message naming the canonical one: the names
// of Flask 1.1.8, the seed's low-level `applyMixer`, and the `delivery:` argument.

/// Flask 1.1.8's name for `Reactor`.
@available(*, deprecated, renamed: "Reactor")
public typealias FlaskClass<Owner: AnyObject> = Reactor<Owner>

/// Flask 1.1.8's name for `ReactorManager`.
@available(*, deprecated, renamed: "ReactorManager")
public typealias FlaskManager = ReactorManager

/// Flask 1.1.8's name for `Flask.substances(reactTo:payload:)`.
@available(*, deprecated, renamed: "Flask.substances(reactTo:payload:)")
public func MixSubstances<M: SubstanceMixer>(with mixer: M, payload: FluxPayload? = nil) {
    Flask.substances(reactTo: mixer, payload: payload)
}

/// Flask 1.1.8's name for `Flask.attachReactor(to:mixing:)`.
@available(*, deprecated, renamed: "Flask.attachReactor(to:mixing:)")
@discardableResult
public func AttachFlaskReactor<Owner: FlaskReactor>(
    to owner: sending Owner, mixing substances: [any AnySubstance], isolation: isolated (any Actor)? = #isolation
) -> Reactor<Owner> {
    Flask.attachReactor(to: owner, mixing: substances, isolation: isolation)
}

/// Flask 1.1.8's name for `Flask.detachReactor(from:)`.
@available(*, deprecated, renamed: "Flask.detachReactor(from:)")
public func DetachFlaskReactor(from owner: AnyObject) {
    Flask.detachReactor(from: owner)
}

/// Flask 1.1.8's name for `Flask.newSubstance(definedBy:named:archive:)`.
@available(*, deprecated, renamed: "Flask.newSubstance(definedBy:named:archive:)")
public func NewSubstance<S: State>(definedBy type: S.Type, named name: String, archive: Bool = false) -> Substance<S> {
    Flask.newSubstance(definedBy: type, named: name, archive: archive)
}

/// Flask 1.1.8's name for `Flask.newSubstance(definedBy:)`.
@available(*, deprecated, renamed: "Flask.newSubstance(definedBy:)")
public func NewSubstance<S: State>(definedBy type: S.Type) -> Substance<S> {
    Flask.newSubstance(definedBy: type)
}

extension Flask {
    /// Flask 1.1.8's name for `Flask.reactor(attachedTo:mixing:)`.
    @available(*, deprecated, renamed: "reactor(attachedTo:mixing:)")
    public static func instance<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substance: any AnySubstance
    )
        -> Reactor<Owner>
    {
        reactor(attachedTo: owner, mixing: substance)
    }

    /// Flask 1.1.8's name for `Flask.reactor(attachedTo:mixing:)`.
    @available(*, deprecated, renamed: "reactor(attachedTo:mixing:)")
    public static func instance<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substances: [any AnySubstance]
    )
        -> Reactor<Owner>
    {
        reactor(attachedTo: owner, mixing: substances)
    }
}

extension Reactor where Owner: Sendable {
    /// Flask 1.1.8's name for `handler`: `flask.reactor = { owner, reaction in }`.
    @available(*, deprecated, renamed: "handler")
    public var reactor: Handler? {
        get { handler }
        set { handler = newValue }
    }
}

extension Reactor {
    /// Flask 1.1.8's name for `mixing(_:_:)`.
    @available(*, deprecated, renamed: "mixing(_:_:)")
    public func toMix<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mixing(substance, body)
    }
}

extension ChainReaction {
    /// Flask 1.1.8's name for `mixing(_:_:)`.
    @available(*, deprecated, renamed: "mixing(_:_:)")
    @discardableResult
    public func toMix<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mixing(substance, body)
    }
}

extension Flask {
    /// The seed's low-level name of ``substances(reactTo:payload:on:fileID:line:function:)``. It does not wait, though
    /// its name is close to the awaited ``apply(_:payload:on:fileID:line:function:isolation:)``.
    @available(
        *, deprecated, renamed: "substances(reactTo:payload:on:)", message: "it does not wait; await apply(_:) does"
    )
    public static func applyMixer<M: SubstanceMixer>(_ mixer: M, payload: FluxPayload? = nil, on bus: Flux = .current) {
        substances(reactTo: mixer, payload: payload, on: bus)
    }

    /// Creates a reactor whose handler runs where `delivery` says.
    @available(*, deprecated, message: "a reactor's handler runs on the bus; for a UI owner, set mainActorHandler")
    public static func reactor<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery
    ) -> Reactor<Owner> {
        reactorManager.reactor(attachedTo: owner, mixing: substances, delivery: delivery)
    }

    /// Creates a reactor bound to one substance whose handler runs where `delivery` says.
    @available(*, deprecated, message: "a reactor's handler runs on the bus; for a UI owner, set mainActorHandler")
    public static func reactor<Owner: AnyObject & Sendable>(
        attachedTo owner: Owner, mixing substance: any AnySubstance, delivery: ReactionDelivery
    ) -> Reactor<Owner> {
        reactorManager.reactor(attachedTo: owner, mixing: [substance], delivery: delivery)
    }

    /// Attaches a reactor to a `Sendable` `FlaskReactor` owner whose reactions run where
    /// `delivery` says (on the bus, or on the main queue), wherever this is called from.
    @available(*, deprecated, message: "attach from the isolation the reactions should run in, or set mainActorHandler")
    @discardableResult
    @_disfavoredOverload
    public static func attachReactor<Owner: FlaskReactor & Sendable & SendableMetatype>(
        to owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery
    ) -> Reactor<Owner> {
        reactorManager.attachReactor(to: owner, mixing: substances, delivery: delivery)
    }
}
