import Substances

/// An owner that reacts in a method rather than a closure.
///
/// ```swift
/// final class Screen: FlaskReactor {
///     func flaskReactions(reaction: FlaskReaction) {
///         reaction.on(AppState.prop.counter) { change in ... }
///     }
/// }
/// Flask.attachReactor(to: screen, mixing: [substance])
/// ```
///
/// The method runs on the bus (or the main queue, if attached with `.mainQueue` delivery).
public protocol FlaskReactor: AnyObject {
    func flaskReactions(reaction: FlaskReaction)

    /// Flask 1.1.8's name for ``flaskReactions(reaction:)``: an owner that still implements it
    /// keeps working.
    @available(*, deprecated, renamed: "flaskReactions(reaction:)")
    func flaskReactor(reaction: FlaskReaction)
}

extension FlaskReactor {
    /// Forwards to the 1.1.8 method, for owners written against it.
    @available(*, deprecated, message: "implement flaskReactions(reaction:)")
    public func flaskReactions(reaction: FlaskReaction) {
        flaskReactor(reaction: reaction)
    }

    @available(*, deprecated, renamed: "flaskReactions(reaction:)")
    public func flaskReactor(reaction: FlaskReaction) {
        reaction.substance.bus.report(
            .reactorMisuse,
            "\(Self.self) conforms to FlaskReactor but implements neither flaskReactions(reaction:) nor flaskReactor(reaction:)"
        )
    }
}

extension ReactorManager {
    /// Attaches a reactor whose handler is `owner.flaskReactions(reaction:)`.
    @discardableResult
    public func attachReactor<Owner: FlaskReactor & SendableMetatype>(
        to owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery = .bus
    ) -> Reactor<Owner> {
        let reactor = reactor(attachedTo: owner, mixing: substances, delivery: delivery)
        reactor.handler = { owner, reaction in owner.flaskReactions(reaction: reaction) }
        return reactor
    }
}
