// A reaction handed to another thread: its changes could be refilled for a later commit.
// Expected: "capture of 'reaction' with non-Sendable type 'FlaskReaction'".
import Dispatch
import FlaskAPI

struct CounterState: State {
    var counter = 0
}

final class Owner: Sendable {}

func start(counter: Substance<CounterState>, owner: Owner) {
    let reactor = Flask.reactor(attachedTo: owner, mixing: counter)
    reactor.handler = { _, reaction in
        DispatchQueue.global().async {
            reaction.on("counter") { change in print(change.newValue() as Int? ?? 0) }
        }
    }
}
