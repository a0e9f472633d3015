// docs/testing.md: a suite that follows the testing guide, compiled as it appears there, and run.
import FlaskAPI
import FlaskTesting
import Testing

@Suite("Session: each test on a bus of its own")
struct SessionTests {
    @Test("logging in sets the user", arguments: ["ada", "grace", "linus"])
    func login(user: String) async {
        await Flask.withBus(Flux()) {
            let session = makeSession()
            let probe = ChangeProbe(session)
            await Flask.apply(Login(user: user))
            #expect(session.state.user == user)
            let mismatch = await probe.mismatch(with: [.change("user", from: nil, to: user)])
            #expect(mismatch == nil)
        }
    }

    @Test("an empty user name is refused, and nothing changes")
    func emptyLogin() async {
        await Flask.withBus(Flux()) {
            let session = makeSession()
            let outcome = await Flask.apply(Login(user: ""))
            #expect(outcome.wasAborted)
            #expect(session.state.user == nil)
        }
    }

    @Test("logging out clears the user")
    func logout() async {
        await Flask.withBus(Flux()) {
            let session = makeSession()
            await Flask.apply(Login(user: "ada"))
            await Flask.apply(SessionMixers.logout)
            #expect(session.state.user == nil)
        }
    }
}

@Suite(.ownBus)
struct LogoutTests {
    @Test("logging out clears the user")
    func logout() async {
        let session = makeSession()
        await Flask.apply(Login(user: "ada"))
        await Flask.apply(SessionMixers.logout)
        #expect(session.state.user == nil)
    }
}
