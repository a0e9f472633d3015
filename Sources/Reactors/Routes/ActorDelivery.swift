/// Runs a reactor's reactions on an actor other than the main actor, in commit order: one task
/// isolated to the actor takes them from a stream, one after the other.
final class ActorDelivery<Owner: AnyObject>: Sendable {
    private let continuation: AsyncStream<Hop<Owner>>.Continuation

    /// Starts the task on `isolation`, which calls `react` with each reaction.
    ///
    /// `react` is isolated to `isolation`, where it was made, and runs only there.
    init(isolation: isolated (any Actor)?, react: @escaping (Owner, FlaskReaction) -> Void) {
        let (stream, continuation) = AsyncStream<Hop<Owner>>.makeStream()
        self.continuation = continuation
        Task {
            _ = isolation  // the task runs on the actor `react` belongs to
            for await hop in stream { hop.reactor.receive(hop.reaction, react) }
        }
    }

    /// Hands a reaction to the actor (from the bus). The changes are marked escaped.
    func deliver(_ hop: Hop<Owner>) {
        continuation.yield(hop)
    }

    /// Ends the task once it has run what it was given.
    func finish() {
        continuation.finish()
    }
}
