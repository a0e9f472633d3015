/// A reaction crossing from the bus to where its handler runs (the main actor, another actor),
/// with its reactor, whose owner is loaded there.
///
/// `@unchecked Sendable`: the reaction's changes are marked escaped (never refilled) before it
/// crosses, and its lock taken over; after that only the receiving side uses it. The reactor is
/// `Sendable`.
struct Hop<Owner: AnyObject>: @unchecked Sendable {
    let reactor: Reactor<Owner>
    let reaction: FlaskReaction

    /// The owner, now that the reaction arrived; nil when it must not be delivered: the reactor was
    /// detached since it was sent, or its owner is gone (the reactor then detaches). A reaction not
    /// delivered gives up the lock it took over.
    ///
    /// The owner is not held while the reaction waits (the bus never holds it, so a UI owner is
    /// released where it was); found from outside: queued reactions kept an owner its app had
    /// released alive, and delivered every one of them.
    func arrived() -> Owner? {
        if !reactor.isDetached, let owner = reactor.owner { return owner }
        reaction.releaseLockIfOpen()
        reactor.detach()
        return nil
    }
}
