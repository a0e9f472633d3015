import FlaskTestSupport
import FluxBus
import Substances
import Testing

private struct Account: Codable, Equatable, Sendable {
    var user = ""
    var password = ""
}

private struct MisnamedSecrets: State {
    var token = ""
    var list: [Account] = []
    static var secretKeys: Set<String> { ["tokn", "list.password", "list.pin"] }
}

/// The check of `State.secretKeys` that Substances makes; how the tools apply secret keys is
/// tested in FlaskToolsTests (`SecretKeysTests`).
@Suite("Secret keys: an unknown one is reported")
struct UnknownSecretKeyTests {
    @Test("a secret key that names no key the state can have is reported once")
    func unknownSecretKey() {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        _ = Substance<MisnamedSecrets>(bus: bus)
        _ = Substance<MisnamedSecrets>(bus: bus)
        let messages = reports.all.filter { $0.code == .unknownSecretKey }.map(\.message)
        #expect(messages.count == 2)
        #expect(messages.contains { $0.contains("\"tokn\"") })
        #expect(messages.contains { $0.contains("\"list.pin\"") })
    }
}
