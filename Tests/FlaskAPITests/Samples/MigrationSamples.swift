// docs/migrating.md: code written against Flask 1.1.8 still compiles. The functions are marked
// deprecated themselves so that this file builds without warnings; in your code each old name
// shows a deprecation warning with a fix-it to the new one.
import FlaskAPI

@available(*, deprecated, message: "Flask 1.1.8 names, kept to show that they still compile")
final class LegacyViewController: FlaskReactor, Sendable {
    let substance = Feed()
    let seen: @Sendable (Int) -> Void

    init(seen: @escaping @Sendable (Int) -> Void) {
        self.seen = seen
    }

    func flaskReactor(reaction: FlaskReaction) {
        reaction.on(AppState.prop.counter) { change in seen(change.newValue() ?? -1) }
    }

    func viewDidLoad() {
        AttachFlaskReactor(to: self, mixing: [substance])
        Flask.getReactor(attachedTo: self)
            .toMix(self.substance) { (substance) in
                substance.prop.counter = 10
            }.with(self.substance) { (substance) in
                substance.prop.text = "text"
            }.andReact()
        MixSubstances(with: EnvMixers.Login, payload: ["username": "foo"])
    }
}

@available(*, deprecated, message: "Flask 1.1.8 names, kept to show that they still compile")
func legacyInstance(owner: TestOwner, seen: @escaping @Sendable (Int) -> Void) -> Substance<AppState> {
    let substance = NewSubstance(definedBy: AppState.self, named: "legacy-\(ObjectIdentifier(owner).hashValue)")
    let flask = Flask.instance(attachedTo: owner, mixing: substance)
    flask.reactor = { owner, reaction in
        reaction.on(AppState.prop.counter) { change in seen(change.newValue() ?? -1) }
    }
    flask.toMix(substance) { $0.prop.counter = 1 }.react()
    return substance
}

// docs/migrating.md: the seed's spellings, which are not deprecated.

@MainActor
final class SeedCounterScreen: @MainActor FlaskReactor {
    let counter = Substance<CounterState>()
    var label = "0"

    func flaskReactions(reaction: FlaskReaction) {
        reaction.on(CounterState.prop.counter) { change in
            label = "\(change.newValue() as Int? ?? 0)"
        }
    }

    func start() {
        Flask.attachReactor(to: self, mixing: [counter])  // attached on the main actor: reacts there
        Flask.getReactor(attachedTo: self)
            .mixing(counter) { $0.prop.counter += 1 }
            .with(counter) { $0.prop.text = "tapped" }
            .andReact()
    }
}

final class LegacySession: ReactiveSubstance<SessionState, SessionMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .logout) { _, react, _ in
            self.prop.user = nil
            react()
        }
    }
}
