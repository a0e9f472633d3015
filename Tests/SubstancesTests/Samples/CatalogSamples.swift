// The Swift sample of Sources/Substances/Substances.docc, compiled as it appears there
// (DocumentationSamplesTests checks that every block of the catalog is in a compiled file), and
// run. It imports Substances and FluxBus alone, not FlaskAPI: what a user of the Substances product
// has.
import FluxBus
import Substances
import Testing

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

/// A session on the current bus (a test's, inside `Flux.withCurrent`): its mixers are defined
/// once, and each body is handed the substance it runs on.
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

@Suite("The Substances catalog's sample, run")
struct SubstancesCatalogSampleTests {
    @Test("the session logs in and out, on the bus it was made on")
    func session() async {
        let bus = Flux()
        let session = Flux.withCurrent(bus) { makeSession() }
        #expect(session.bus === bus)
        await bus.apply(Login(user: "ada"))
        #expect(session.state.user == "ada")
        let refused = await bus.apply(Login(user: ""))
        #expect(refused.wasAborted)
        await bus.apply(SessionMixers.logout)
        #expect(session.state.user == nil)
    }
}
