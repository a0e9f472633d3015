// Several substances passed as a list rather than an array: refused with advice, where the
// compiler once answered with an error about the deprecated `delivery:` spelling.
// Expected: "pass several substances as an array: mixing: [a, b]" and, for attachReactor,
// "pass the substances as an array: mixing: [a, b]".
import FlaskAPI

struct CounterState: State {
    var counter = 0
}

final class Screen: Sendable {
    let a = Substance<CounterState>()
    let b = Substance<CounterState>()

    func start() {
        let reactor = Flask.reactor(attachedTo: self, mixing: a, b)
        reactor.handler = { _, _ in }
    }
}

@MainActor
final class Panel: @MainActor FlaskReactor {
    let a = Substance<CounterState>()

    func flaskReactions(reaction: FlaskReaction) {}

    func start() {
        Flask.attachReactor(to: self, mixing: a)
    }
}
