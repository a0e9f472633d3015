import FlaskTestSupport
import FlaskTesting
import FlaskTools
import FluxBus
import Foundation
import Substances
import Testing

/// A state with secrets at every depth: top level, in a nested struct, below an optional, in every
/// element of an array, in every value of a dictionary.
private struct VaultState: State {
    struct Account: Codable, Equatable, Sendable {
        var user = ""
        var password = ""
    }
    var password = ""
    var nested = Account()
    var account: Account?
    var history: [Account] = []
    var accounts: [String: Account] = [:]
    var note = ""

    static var secretKeys: Set<String> {
        ["password", "nested.password", "account.password", "history.password", "accounts.password"]
    }
}

private enum VaultMixers: SubstanceMixer {
    case fill, signIn
    static var secretPayloadKeys: Set<String> { ["pin"] }
}

private struct SignIn: FlaskAction, Codable {
    let user: String
    let password: String
    static var secretKeys: Set<String> { ["password"] }
}

private let secret = "hunter2"

private func makeVault(on bus: Flux) -> ReactiveSubstance<VaultState, VaultMixers> {
    ReactiveSubstance<VaultState, VaultMixers>(name: "vault", bus: bus) { define in
        define(mix: .fill) { vault, _, react, _ in
            let account = VaultState.Account(user: "ada", password: secret)
            vault.prop.password = secret
            vault.prop.nested = account
            vault.prop.account = account
            vault.prop.history = [account, account]
            vault.prop.accounts = ["ada": account]
            vault.prop.note = "visible"
            react()
        }
        define(mix: .signIn) { _, _, react, _ in react() }
        define(SignIn.self) { vault, signIn, react, _ in
            vault.prop.note = signIn.user
            react()
        }
    }
}

@Suite("Secret keys at any depth, in every text the package writes")
struct SecretKeysTests {
    @Test("the journal's lines and page, the diff printer and a change probe never show a secret")
    func neverWrittenOut() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let printed = Recorder<String>()
        bus.use(MixDiffPrinter(showsPayloadValues: true) { printed.append($0) })
        let vault = makeVault(on: bus)
        let probe = ChangeProbe(vault)
        bus.dispatch(VaultMixers.fill)
        bus.dispatch(VaultMixers.signIn, payload: ["pin": secret, "user": "ada"])
        bus.dispatch(SignIn(user: "ada", password: secret))
        await bus.flush()
        let lines = journal.jsonLines()
        let page = journal.timelineHTML()
        let diff = printed.all.joined(separator: "\n")
        var mismatch = ""
        do {
            try await probe.expectNoChanges()
        } catch {
            mismatch = "\(error)"
        }
        #expect(lines.contains("visible") && diff.contains("visible") && mismatch.contains("visible"))
        for (name, text) in [("JSON lines", lines), ("page", page), ("diff", diff), ("probe", mismatch)] {
            #expect(!text.contains(secret), "\(name) shows a secret")
        }
        #expect(lines.contains("redacted"))
        // What the substance holds is untouched.
        #expect(vault.state.history.map(\.password) == [secret, secret])
    }

    @Test("a journal read back cannot replay an action whose secret fields it did not record, and says why")
    func secretActionsAreNotReplayed() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        _ = makeVault(on: bus)
        bus.dispatch(SignIn(user: "ada", password: secret))
        await bus.flush()
        let entries = try MixJournal.entries(fromJSONLines: journal.jsonLines())
        let replay = await MixJournal.replay(entries, on: Flux(), domains: [VaultMixers.self, SignIn.self])
        #expect(replay.skipped.count == 1)
        #expect(replay.skipped.first?.reason.contains("secret") == true)
    }
}

/// A state whose coding keys differ from its property names, at the top and below.
private struct RenamedState: State {
    struct Coded: Codable, Equatable, Sendable {
        var pin = 0
        var label = ""
        enum CodingKeys: String, CodingKey {
            case pin = "p"
            case label
        }
    }
    var password = ""
    var coded = Coded()
    var note = ""
    enum CodingKeys: String, CodingKey {
        case password = "pw"
        case coded, note
    }
}

/// The same secrets named by property.
private struct NamedByProperty: State {
    var state = RenamedState()
    static var secretKeys: Set<String> { ["state.password", "state.coded.pin"] }
}

/// The same secrets named by coding key.
private struct NamedByCodingKey: State {
    var state = RenamedState()
    static var secretKeys: Set<String> { ["state.pw", "state.coded.p"] }
}

/// The renamed state at the top: the reduction goes through its coding keys.
private struct TopRenamed: State {
    var password = ""
    var coded = RenamedState.Coded()
    var note = ""
    enum CodingKeys: String, CodingKey {
        case password = "pw"
        case coded, note
    }
    static var secretKeys: Set<String> { ["password", "coded.pin"] }
}

/// A secret inside an enumeration's associated values.
private struct SessionState: State {
    enum Auth: Codable, Equatable, Sendable {
        case anonymous
        case signedIn(token: String)
    }
    struct Holder: Codable, Equatable, Sendable {
        var auth = Auth.anonymous
    }
    var holder = Holder()
    var note = ""
    static var secretKeys: Set<String> { ["holder.token"] }
}

private enum LoginMixers: SubstanceMixer {
    case login(password: String)
    case nested
    static var secretPayloadKeys: Set<String> { ["deep.password", "password"] }
}

@Suite("Secret keys by either name: property or coding key")
struct SecretKeysByEitherNameTests {
    /// Every text the tools write of `substance`'s commits after `mix`, and the change probe's
    /// mismatch.
    private func texts<S: State>(
        of substance: Substance<S>, on bus: Flux, journal: MixJournal, printed: Recorder<String>,
        _ mix: @escaping @Sendable (Substance<S>) -> Void
    ) async -> [(String, String)] {
        let probe = ChangeProbe(substance)
        bus.perform(mix: "test") {
            substance.beginTransaction()
            mix(substance)
            if let changes = substance.commitTransaction() { substance.deliver(changes, lock: nil) }
        }
        await bus.flush()
        var mismatch = ""
        do {
            try await probe.expectNoChanges()
        } catch {
            mismatch = "\(error)"
        }
        return [
            ("JSON lines", journal.jsonLines()), ("page", journal.timelineHTML()),
            ("diff", printed.all.joined(separator: "\n")), ("probe", mismatch),
        ]
    }

    private func rig() -> (Flux, MixJournal, Recorder<String>, Recorder<FluxDiagnostic>) {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let journal = MixJournal()
        bus.use(journal)
        let printed = Recorder<String>()
        bus.use(MixDiffPrinter(showsPayloadValues: true) { printed.append($0) })
        return (bus, journal, printed, reports)
    }

    @Test(
        "named by property or by coding key, nested or not, the secret is redacted everywhere, and not reported unknown"
    )
    func eitherName() async {
        for named in ["property", "coding key", "top level"] {
            let (bus, journal, printed, reports) = rig()
            let written: [(String, String)]
            switch named {
            case "property":
                written = await texts(
                    of: Substance<NamedByProperty>(bus: bus), on: bus, journal: journal, printed: printed
                ) {
                    $0.prop.state.password = "hunter2"
                    $0.prop.state.coded.pin = 4242
                    $0.prop.state.note = "visible"
                }
            case "coding key":
                written = await texts(
                    of: Substance<NamedByCodingKey>(bus: bus), on: bus, journal: journal, printed: printed
                ) {
                    $0.prop.state.password = "hunter2"
                    $0.prop.state.coded.pin = 4242
                    $0.prop.state.note = "visible"
                }
            default:
                written = await texts(of: Substance<TopRenamed>(bus: bus), on: bus, journal: journal, printed: printed)
                {
                    $0.prop.password = "hunter2"
                    $0.prop.coded.pin = 4242
                    $0.prop.note = "visible"
                }
            }
            for (name, text) in written {
                #expect(text.contains("visible"), "\(named): \(name) shows nothing")
                #expect(
                    !text.contains("hunter2") && !text.contains("4242"), "\(named): \(name) shows a secret:\n\(text)")
            }
            #expect(reports.all.filter { $0.code == .unknownSecretKey }.isEmpty, "\(named): \(reports.all)")
        }
    }

    @Test("a secret inside an enumeration's associated values is redacted, and not reported unknown")
    func throughAnEnumeration() async {
        let (bus, journal, printed, reports) = rig()
        let written = await texts(of: Substance<SessionState>(bus: bus), on: bus, journal: journal, printed: printed) {
            $0.prop.holder.auth = .signedIn(token: "tok-hunter2")
            $0.prop.note = "visible"
        }
        for (name, text) in written {
            #expect(!text.contains("hunter2"), "\(name) shows the token:\n\(text)")
        }
        #expect(reports.all.filter { $0.code == .unknownSecretKey }.isEmpty, "\(reports.all)")
    }

    @Test("a key that names nothing under either spelling is still reported")
    func unknownStillReported() {
        struct Misnamed: State {
            var state = RenamedState()
            static var secretKeys: Set<String> { ["state.passwd", "state.coded.pn"] }
        }
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        _ = Substance<Misnamed>(bus: bus)
        #expect(reports.all.filter { $0.code == .unknownSecretKey }.count == 2)
    }

    @Test("secret payload keys at any depth: the logger, the diff printer and the journal's mixer field redact them")
    func payloadsAtAnyDepth() async {
        let bus = Flux()
        let lines = Recorder<String>()
        bus.use(FluxLogger(showsPayloadValues: true) { lines.append($0) })
        let printed = Recorder<String>()
        bus.use(MixDiffPrinter(showsPayloadValues: true) { printed.append($0) })
        let journal = MixJournal()
        bus.use(journal)
        // Nobody observes the mixers: middleware see every mix all the same.
        bus.dispatch(
            LoginMixers.nested.busName,
            payload: ["deep": ["password": "hunter2", "user": "ada"] as [String: any Sendable], "password": "hunter2"])
        bus.dispatch(LoginMixers.login(password: "hunter2").busName)
        await bus.flush()
        for (name, text) in [
            ("logger", lines.all.joined(separator: "\n")), ("diff", printed.all.joined(separator: "\n")),
            ("journal", journal.jsonLines()),
        ] {
            #expect(!text.contains("hunter2"), "\(name) shows a secret:\n\(text)")
        }
        #expect(lines.all.joined().contains("ada"), "what is not secret still shows")
    }
}
