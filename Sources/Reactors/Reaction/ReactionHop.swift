/// A reaction crossing from the bus to where its handler runs (the main actor, another actor).
///
/// `@unchecked Sendable`: the reaction's changes are marked escaped (never refilled) before it
/// crosses, and its lock taken over; after that only the receiving side uses it.
struct SentReaction: @unchecked Sendable {
    let reaction: FlaskReaction

    init(_ reaction: FlaskReaction) {
        self.reaction = reaction
    }
}

/// A reaction on its way to another actor, with its reactor, whose owner is loaded there (see
/// `Reactor.receive(_:_:)`).
struct Hop<Owner: AnyObject>: Sendable {
    let reactor: Reactor<Owner>
    let reaction: SentReaction
}
