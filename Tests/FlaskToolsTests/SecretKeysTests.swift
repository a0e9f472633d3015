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
