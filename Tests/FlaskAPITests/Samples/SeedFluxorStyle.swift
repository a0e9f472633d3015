// The seed README's "Fluxor Style" sample, and its FlaskReactor protocol sample.
import FlaskAPI

final class FluxorViewController: FlaskReactor, Sendable {
    let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    func flaskReactions(reaction: FlaskReaction) {
        reaction.on(AppState.prop.title) { (change) in
            log("global title = \(Subs.appReactive.state.title)")
        }
    }

    func viewDidLoad() {
        Flask.attachReactor(to: self, mixing: [Subs.appReactive])
        produceTestReaction()
    }

    func produceTestReaction() {
        Flask.substances(reactTo: EnvMixers.Login, payload: ["username": "foo"])
    }
}

/// The "FlaskReactor protocol" sample: one reactor on two substances.
final class ProtocolViewController: FlaskReactor, Sendable {
    let substance = Feed()
    let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    func flaskReactions(reaction: FlaskReaction) {
        reaction.on(AppState.prop.counter) { (change) in
            log("counter = \(substance.state.counter)")
        }
    }

    func viewDidLoad() {
        Flask.attachReactor(to: self, mixing: [substance, Subs.appReactive])
    }
}
