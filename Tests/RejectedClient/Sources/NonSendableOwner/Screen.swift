// The pattern of issue #20: a plain class (not Sendable) as a reactor's owner, its state mutated
// by a handler that runs on the bus's thread while the main thread reads it.
// Expected: "type 'Screen' does not conform to the 'Sendable' protocol".
import FlaskAPI

struct CounterState: State {
    var counter = 0
}

final class Screen {
    var seen = 0
    let counter = Substance<CounterState>()

    func start() {
        let reactor = Flask.reactor(attachedTo: self, mixing: counter)
        reactor.handler = { owner, reaction in
            reaction.on("counter") { _ in owner.seen += 1 }
        }
    }
}
