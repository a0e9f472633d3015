// The README's quick start, compiled as it appears there (DocumentationSamplesTests checks that
// every Swift block of the README and docs/ appears in a file of this folder).
import FlaskAPI

// MARK: Redux style

struct CounterState: State {
    enum prop: StateProp { case counter, text }
    var counter = 0
    var text = ""
}

@MainActor
final class CounterScreen {
    let counter = Substance<CounterState>()
    var label = "0"

    func start() {
        let reactor = Flask.reactor(attachedTo: self, mixing: counter)
        reactor.mainActorHandler = { screen, reaction in  // on the main actor, in commit order
            reaction.on(CounterState.prop.counter) { change in
                screen.label = "\(change.newValue() as Int? ?? 0)"
            }
        }
        reactor
            .mix(counter) { $0.prop.counter += 1 }
            .mix(counter) { $0.prop.text = "tapped" }
            .react()
    }
}

// MARK: Fluxor style

struct Login: FlaskAction {
    let user: String
}

enum SessionMixers: SubstanceMixer {
    case logout
}

struct SessionState: State {
    var user: String?
}

typealias Session = ReactiveSubstance<SessionState, SessionMixers>

/// A session on the current bus (a test's, inside `Flask.withBus`): its mixers are defined once,
/// and each body is handed the substance it runs on.
func makeSession() -> Session {
    Session(name: "session") { define in
        define(Login.self) { session, login, react, abort in
            guard !login.user.isEmpty else { return abort() }
            session.prop.user = login.user
            react()
        }
        define(mix: .logout) { session, _, react, _ in
            session.prop.user = nil
            react()
        }
    }
}

let session = makeSession()

@MainActor
final class SessionBadge {
    var text = ""

    func start() {
        let reactor = Flask.reactor(attachedTo: self, mixing: session)
        reactor.mainActorHandler = { badge, reaction in
            reaction.on("user") { change in badge.text = change.newValue() ?? "nobody" }
        }
        Flask.substances(reactTo: Login(user: "ada"))
    }
}

struct SettingsState: State {
    var settings = FlaskDictRef(["theme": "dark", "font": ["size": 12]])
}

func useLightTheme(_ substance: Substance<SettingsState>) {
    let fontSize = substance.state.settings["font.size"] as? Int
    print("font size", fontSize ?? 0)
    ChainReaction().mix(substance) { $0.prop.settings = $0.prop.settings.updating("theme", to: "light") }.react()
}

struct Card: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

struct ColumnState: State {
    var cards: [Card] = []
}

func move(cardID: Int, from source: Substance<ColumnState>, to target: Substance<ColumnState>) {
    ChainReaction()
        .mix(source) { source, abort in
            // Not in this column (any more): nothing of the chain commits.
            guard source.prop.cards.contains(where: { $0.id == cardID }) else { return abort() }
        }
        .mix(target) { target in
            // The source's working copy, read in the same transaction.
            guard let card = source.prop.cards.first(where: { $0.id == cardID }) else { return }
            target.prop.cards.append(card)
        }
        .mix(source) { $0.prop.cards.removeAll { $0.id == cardID } }
        .react()
}
