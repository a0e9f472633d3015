// docs/testing.md: a suite that follows the testing guide, compiled as it appears there, and run.
import FlaskAPI
import FlaskTesting
import Testing

@Suite("Session: each test on a bus of its own")
struct SessionTests {
    let bus = Flux()

    @Test("logging in sets the user", arguments: ["ada", "grace", "linus"])
    func login(user: String) async {
        let session = makeSession(on: bus)
        let probe = ChangeProbe(session)
        await Flask.apply(Login(user: user), on: bus)
        #expect(session.state.user == user)
        let mismatch = await probe.mismatch(with: [.change("user", from: nil, to: user)])
        #expect(mismatch == nil)
    }

    @Test("an empty user name is refused, and nothing changes")
    func emptyLogin() async {
        let session = makeSession(on: bus)
        let outcome = await Flask.apply(Login(user: ""), on: bus)
        #expect(outcome.wasAborted)
        #expect(session.state.user == nil)
    }

    @Test("logging out clears the user")
    func logout() async {
        let session = makeSession(on: bus)
        await Flask.apply(Login(user: "ada"), on: bus)
        await Flask.apply(SessionMixers.logout, on: bus)
        #expect(session.state.user == nil)
    }
}
