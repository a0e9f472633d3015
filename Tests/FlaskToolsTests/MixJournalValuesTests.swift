import FlaskTestSupport
import FlaskTools
import FluxBus
import Foundation
import Substances
import Testing

/// A state with a secret, an internal property, a nested struct and a long list.
private struct AccountState: State, Equatable {
    struct Profile: Codable, Sendable, Equatable {
        var name = ""
        var age = 0
    }
    var profile = Profile()
    var token = ""
    var history: [Int] = []
    var _scratch = 0
    static var secretKeys: Set<String> { ["token"] }
}

private enum AccountMixers: SubstanceMixer { case edit }

@Suite("Mix journal: values, starting states, rebuilt states, value-exact replay")
struct MixJournalValuesTests {
    /// An account substance on `bus` whose `edit` runs `body`.
    private func account(_ bus: Flux, name: String = "account") -> ReactiveSubstance<AccountState, AccountMixers> {
        ReactiveSubstance<AccountState, AccountMixers>(name: name, bus: bus) { define in
            define(mix: .edit) { account, payload, react, _ in
                if let name = payload?["name"] as? String { account.prop.profile.name = name }
                if let age = payload?["age"] as? Int { account.prop.profile.age = age }
                if let token = payload?["token"] as? String { account.prop.token = token }
                if let count = payload?["history"] as? Int { account.prop.history = Array(0..<count) }
                account.prop._scratch += 1
                react()
            }
        }
    }

    @Test("each changed key is recorded with its values before and after; secrets redacted, _ properties never")
    func values() async throws {
        let bus = Flux()
        // Payloads are left out (the token arrives in one): the changed values are what is checked.
        let journal = MixJournal(recordsPayloadValues: false, recordsChangedValues: true)
        bus.use(journal)
        let account = account(bus)
        bus.dispatch(AccountMixers.edit.busName, payload: ["name": "ada", "age": 36])
        bus.dispatch(AccountMixers.edit.busName, payload: ["token": "tok-SECRET"])
        await bus.flush()
        let entries = journal.entries
        #expect(entries.count == 2)
        let first = try #require(entries[0].changes.first?.values)
        #expect(
            first.sorted { $0.key < $1.key } == [
                KeyChange(key: "profile.age", old: .int(0), new: .int(36)),
                KeyChange(key: "profile.name", old: .string(""), new: .string("ada")),
            ])
        #expect(entries[0].changes.first?.keys.contains("profile") == true, "the parent is among the keys")
        let second = try #require(entries[1].changes.first?.values)
        #expect(second == [KeyChange(key: "token", old: .redacted, new: .redacted)])
        let lines = journal.jsonLines()
        #expect(!lines.contains("tok-SECRET"))
        #expect(!lines.contains("_scratch"))
        #expect(account.state.token == "tok-SECRET")
    }

    @Test("the starting state and the values rebuild the state after any mix, also after entries were dropped")
    func rebuild() async throws {
        let bus = Flux()
        let journal = MixJournal(capacity: 3)
        bus.use(journal)
        let account = account(bus)
        for age in 1...5 { bus.dispatch(AccountMixers.edit.busName, payload: ["age": age]) }
        bus.dispatch(AccountMixers.edit.busName, payload: ["name": "grace"])
        await bus.flush()
        let document = try MixJournal.Document(jsonLines: journal.jsonLines())
        #expect(document.entries.count == 3)
        #expect(journal.droppedCount == 3)
        // Before the first kept mix (age 4): the dropped ones are folded in.
        let start = try #require(document.startStates["account"])
        #expect(start.value(at: "profile.age") == .int(3))
        #expect(start.value(at: "_scratch") == nil)
        let afterFifth = document.states(after: document.entries[1].serial)["account"]
        #expect(afterFifth?.value(at: "profile.age") == .int(5))
        #expect(afterFifth?.value(at: "profile.name") == .string(""))
        let last = document.states(after: document.entries[2].serial)["account"]
        #expect(last?.value(at: "profile.name") == .string("grace"))
        #expect(last?.value(at: "token") == .redacted)
        #expect(account.state.profile.age == 5)
    }

    @Test("a dictionary key with a dot is one key when the state is rebuilt, as reactions name it")
    func dottedDictionaryKey() async throws {
        struct Settings: State {
            var info = FlaskDictRef(["a.b": 1, "a": ["b": 2]])
        }
        enum SettingsMixers: SubstanceMixer { case bump }
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let settings = ReactiveSubstance<Settings, SettingsMixers>(name: "settings", bus: bus) { define in
            define(mix: .bump) { settings, _, react, _ in
                settings.prop.info = settings.prop.info.updating("a.b", to: 10)
                react()
            }
        }
        bus.dispatch(SettingsMixers.bump.busName)
        await bus.flush()
        #expect(journal.entries.first?.changes.first?.keys == ["info", "info.a\\.b"])
        let state = try #require(journal.document.states(after: 1)["settings"])
        #expect(state.value(at: "info") == .object(["a.b": .int(10), "a": .object(["b": .int(2)])]), "\(state)")
        #expect(state.value(at: "info.a\\.b") == .int(10))
        withExtendedLifetime(settings) {}
    }

    @Test("a long value is cut to the journal's bound, and says so")
    func bounded() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let account = account(bus)
        bus.dispatch(AccountMixers.edit.busName, payload: ["history": 10_000])
        await bus.flush()
        let change = try #require(journal.entries.first?.changes.first?.values?.first)
        #expect(change.key == "history" && change.cut)
        guard case .array(let kept) = change.new else {
            Issue.record("not an array: \(change.new)")
            return
        }
        #expect(kept.count < 10_000)
        #expect(kept.last?.description.contains("more") == true, "\(kept.last!)")
        let line = try JSONEncoder().encode(change)
        #expect(line.count < MixJournal.valueLimit * 2)
        #expect(account.state.history.count == 10_000)
    }

    @Test("a journal that keeps no payload values keeps no changed values either, unless asked")
    func optOut() async {
        let bus = Flux()
        let quiet = MixJournal(recordsPayloadValues: false)
        bus.use(quiet)
        let account = account(bus)
        bus.dispatch(AccountMixers.edit.busName, payload: ["name": "ada"])
        await bus.flush()
        #expect(quiet.entries.first?.changes.first?.values == nil)
        #expect(quiet.document.startStates.isEmpty)
        #expect(!quiet.jsonLines().contains("ada"))
        _ = account
    }

    @Test("a replay reproduces the recording only when every changed key got the same value")
    func replayComparesValues() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let account = account(bus)
        bus.dispatch(AccountMixers.edit.busName, payload: ["age": 30])
        await bus.flush()
        _ = account
        // Replayed on an account that starts elsewhere, the same mixer sets the same key to the
        // same value: reproduced.
        let same = Flux()
        let fresh = self.account(same)
        #expect(await journal.replay(on: same, domains: [AccountMixers.self]).reproducesRecording)
        _ = fresh
        // A recording edited to say 31: the replay sets 30, and says where.
        var document = try MixJournal.Document(jsonLines: journal.jsonLines())
        let edited = document.jsonLines().replacingOccurrences(of: #""new":30"#, with: #""new":31"#)
        document = try MixJournal.Document(jsonLines: edited)
        let other = Flux()
        let again = self.account(other)
        let replay = await MixJournal.replay(document.entries, on: other, domains: [AccountMixers.self])
        #expect(!replay.reproducesRecording)
        let divergence = try #require(replay.divergences.first?.values.first)
        #expect(divergence.substance == "account" && divergence.key == "profile.age")
        #expect(divergence.recorded == .int(31) && divergence.replayed == .int(30))
        #expect(replay.description.contains("account.profile.age recorded 31, replayed 30"), "\(replay)")
        _ = again
    }
}
