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
