/// An owner and a reaction crossing from the bus to the thread that runs the handler.
///
/// `@unchecked Sendable`: the owner is `Sendable` or a main-actor object used only on the main
/// actor, and the reaction's changes are marked escaped (never refilled) before it crosses; after
/// that only the receiving side uses either.
struct Hop<Owner: AnyObject>: @unchecked Sendable {
    let owner: Owner
    let reaction: FlaskReaction
}
