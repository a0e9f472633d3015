/// Where a reactor's handler runs: on the bus. `.mainQueue` is the deprecated `delivery:`
/// argument's other value; a UI owner's reactions run on the main actor through
/// ``Reactor/mainActorHandler``.
public enum ReactionDelivery: Sendable, Equatable {
    /// On the bus, right after the commit and before the next work item (the default). A lock taken
    /// in the handler holds back the next mix.
    case bus
    /// On the main queue, in commit order, for owners that are UI. The bus does not wait for the
    /// handler; an exclusive mix's lock stays held until the handler has run, and until it
    /// releases the lock if it read `reaction.onLock`.
    case mainQueue
}
