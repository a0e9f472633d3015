// The samples of tools.md's "Your own tool", compiled as they appear there and run by the tests
// below: a tool written on the core's public API alone, as FlaskTools itself is.
import FluxBus
import Substances
import Testing

/// A middleware of your own: each commit's changed keys with their new values, secrets redacted.
final class ChangeLines: FluxMiddleware {
    let lines = LockedValue<[String]>([])

    func didMix(_ report: FluxMixReport) {
        report.forEachOutcome { entry in
            guard case .committed(let changes) = entry.result else { return }
            for slot in 0..<changes.count {
                let key = changes.key(at: slot)
                let shown = changes.secrets.isSecret(key) ? "<redacted>" : "\(changes.changedValues(at: slot).new)"
                lines.withLock { $0.append("\(entry.receiverName).\(key) = \(shown)") }
            }
        }
    }
}

/// Sets a substance's state as a commit of its own, which observers and reactors receive.
func jump<S: State>(_ substance: Substance<S>, to state: S) async -> MixOutcome {
    await substance.bus.performAndWait(mix: "jump") {
        substance.replaceState(with: state, source: .task("jump"))
    }
}

struct LoginState: State, Equatable {
    var user = ""
    var password = ""
    static var secretKeys: Set<String> { ["password"] }
}

@Suite("Your own tool (tools.md)")
struct OwnToolSampleTests {
    @Test("a middleware of one's own reads each commit's keys and values, secrets redacted")
    func changeLines() async {
        let bus = Flux(label: "own-tool")
        let lines = ChangeLines()
        bus.use(lines)
        let login = Substance<LoginState>(name: "login", bus: bus)
        let outcome = await jump(login, to: LoginState(user: "ada", password: "s3cret"))
        await bus.flush()
        #expect(outcome.entries.map(\.receiverName) == ["login"])
        #expect(outcome.entries.first?.commit?.mix.name.description == "jump")
        let written = lines.lines.withLock { $0 }.sorted()
        #expect(written == [#"login.password = <redacted>"#, #"login.user = string("ada")"#])
        #expect(login.state == LoginState(user: "ada", password: "s3cret"))
    }
}
