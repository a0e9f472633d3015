// A plain class conforming to FlaskReactor, attached from nonisolated code: its method would run
// on the bus's thread while its own thread uses its state.
// Expected: "sending 'self' risks causing data races".
import FlaskAPI

struct CounterState: State {
    var counter = 0
}

final class Screen: FlaskReactor {
    var seen = 0
    let counter = Substance<CounterState>()

    func flaskReactions(reaction: FlaskReaction) {
        seen += 1
    }

    func start() {
        Flask.attachReactor(to: self, mixing: [counter])
    }
}
