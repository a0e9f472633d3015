import FlaskLocking

/// A reaction crossing from the bus to where its handler runs (the main actor, another actor).
/// A reaction is not `Sendable`; this one may cross (an `UncheckedSendable`) because its changes
/// are marked escaped (never refilled) before it crosses, and its lock taken over; after that
/// only the receiving side uses it.
struct SentReaction: Sendable {
    private let crossing: UncheckedSendable<FlaskReaction>

    /// The reaction, where it arrived.
    var reaction: FlaskReaction { crossing.value }

    init(_ reaction: FlaskReaction) {
        self.crossing = UncheckedSendable(reaction)
    }
}

/// A reaction on its way to another actor, with its reactor, whose owner is loaded there (see
/// `Reactor.receive(_:_:)`).
struct Hop<Owner: AnyObject>: Sendable {
    let reactor: Reactor<Owner>
    let reaction: SentReaction
}
