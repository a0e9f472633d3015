import FluxBus
import Substances

/// An owner that reacts in a method rather than a closure.
///
/// A UI owner conforms on the main actor, and its reactions run there:
///
/// ```swift
/// @MainActor
/// final class CounterScreen: @MainActor FlaskReactor {
///     let counter = Substance<CounterState>()
///     var label = ""
///
///     func flaskReactions(reaction: FlaskReaction) {
///         reaction.on(CounterState.prop.counter) { change in label = "\(change.newValue() as Int? ?? 0)" }
///     }
///
///     func viewDidLoad() {
///         Flask.attachReactor(to: self, mixing: [counter])   // attached on the main actor: reacts there
///     }
/// }
/// ```
///
/// A `Sendable` owner that conforms without isolation, attached from nonisolated code, reacts on
/// the bus, right after each commit.
///
/// Where the method runs is where ``ReactorManager/attachReactor(to:mixing:isolation:)`` was called
/// from: on the main actor from the main actor (or from any actor, on that actor, in commit order),
/// on the bus from nonisolated code.
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

    /// Reports that neither method is implemented.
    @available(*, deprecated, renamed: "flaskReactions(reaction:)")
    public func flaskReactor(reaction: FlaskReaction) {
        reaction.substance.bus.report(
            .reactorMisuse,
            "\(Self.self) conforms to FlaskReactor but implements neither flaskReactions(reaction:) nor flaskReactor(reaction:)"
        )
    }
}

extension ReactorManager {
    /// Attaches a reactor whose reactions call `owner.flaskReactions(reaction:)` in the isolation
    /// this is called from: on the main actor when called from the main actor (the conformance
    /// may be `@MainActor`-isolated, as a view controller's is), on that actor when called from
    /// another one, on the bus when called from nonisolated code.
    ///
    /// The owner is `sending`: from nonisolated code it must be `Sendable`, since its method will
    /// run on the bus's thread (a plain class is refused: "sending 'self' risks causing data
    /// races"; make it `Sendable` or `@MainActor`).
    @discardableResult
    public func attachReactor<Owner: FlaskReactor>(
        to owner: sending Owner, mixing substances: [any AnySubstance],
        isolation: isolated (any Actor)? = #isolation
    ) -> Reactor<Owner> {
        let reactor = makeReactor(attachedTo: owner, mixing: substances, delivery: .bus)
        // Made here, in the caller's isolation, where the conformance may be used; it runs only in
        // that isolation, or on the bus when the caller was nonisolated (whose conformance then is
        // nonisolated too: an isolated one cannot be used outside its actor).
        let react: (Owner, FlaskReaction) -> Void = { owner, reaction in owner.flaskReactions(reaction: reaction) }
        if let actor = isolation, actor === MainActor.shared {
            reactor.reactOnMainActor(react)
        } else if isolation != nil {
            reactor.setActorDelivery(ActorDelivery(isolation: isolation, react: react))
        } else {
            reactor.reactOnBus(react)
        }
        return reactor
    }
}
