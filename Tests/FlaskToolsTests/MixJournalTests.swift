import FlaskTestSupport
import FluxBus
import Foundation
import Testing

@testable import FlaskTools
@testable import Substances

@Suite("Mix journal and replay")
struct MixJournalTests {
    /// A session: mixers with payloads, an aborted mix, a chain-like task, a rollback.
    private func record(on bus: Flux, _ editor: Editor, _ notes: Substance<EditorState>) async {
        bus.dispatch(.type, ["text": "hello"])
        bus.dispatch(.type, ["text": " world"])
        bus.dispatch(.increment, ["by": 2])
        bus.dispatch(.tag, ["tags": ["a", "b"], "weight": 2.0])
        bus.dispatch(.refuse)
        bus.dispatch(.type)
        // A task that mixes a plain substance, as a chain reaction does.
        bus.perform(mix: "chain") {
            notes.beginTransaction()
            notes.prop.text = "note"
            _ = notes.commitTransaction()
        }
        notes.captureState()
        bus.perform(mix: "chain") {
            notes.beginTransaction()
            notes.prop.count = 7
            _ = notes.commitTransaction()
        }
        notes.rollbackState()
        bus.dispatch(.increment)
        await bus.flush()
    }

    @Test("the journal records every mix: mixer, payload, changed keys, aborts, reactors, locks, time")
    func records() async {
        let before = Date()
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let editor = Editor(name: "editor", bus: bus)
        let log = ChangeLog()
        editor.bind(log)
        let lock = bus.lock(withMixer: "audit", autorelease: true)
        bus.dispatch(.type, ["text": "hi"])
        bus.dispatch(.refuse)
        await bus.flush()
        #expect(lock.isReleased)
        let entries = journal.entries
        #expect(entries.map(\.mixer) == ["audit", "type", "refuse"])
        #expect(entries.map(\.kind) == [.exclusiveMixer, .mixer, .mixer])
        #expect(entries[0].locksHeld == [lock.serial])
        #expect(entries[1].domain == "EditorMixers")
        #expect(entries[1].payload == ["text": .string("hi")])
        #expect(entries[1].changes.map(\.substance) == ["editor"])
        #expect(Set(entries[1].changes[0].keys) == ["text", "info", "info.words"])
        #expect(entries[1].reactorsNotified == 1)
        #expect(entries[1].observersCalled == 1)
        #expect(entries[1].microseconds > 0)
        // Dated by the wall clock, from the bus's monotonic one: between the times the test read
        // before the mixes and after them (however long a loaded machine took), and in order. A
        // millisecond's slack: the bus converts its monotonic reading to wall time.
        let after = Date()
        #expect(entries.allSatisfy { $0.date >= before.addingTimeInterval(-0.001) })
        #expect(entries.allSatisfy { $0.date <= after.addingTimeInterval(0.001) })
        #expect(entries.map(\.date) == entries.map(\.date).sorted())
        #expect(entries[2].changes == [MixJournal.Change(substance: "editor", keys: [], aborted: true)])
        #expect(editor.state.text == "hi")
    }

    @Test("the journal keeps the last entries up to its capacity and counts what it dropped")
    func bounded() async {
        let bus = Flux()
        let journal = MixJournal(capacity: 3)
        bus.use(journal)
        for _ in 0..<5 { bus.dispatch("tick") }
        await bus.flush()
        #expect(journal.entries.map(\.serial) == [3, 4, 5])
        #expect(journal.droppedCount == 2)
        journal.clear()
        #expect(journal.entries.isEmpty && journal.droppedCount == 0)
    }

    @Test("a task's recorded state holds no secret key and no _ property; a replay keeps the replaying substance's")
    func taskStatesWithoutSecrets() async throws {
        struct Vault: State, Equatable {
            struct Credentials: Codable, Sendable, Equatable {
                var label = ""
                var pin = ""
            }
            var owner = ""
            var token = ""
            var credentials = Credentials()
            var _cache = 0
            static var secretKeys: Set<String> { ["token", "credentials.pin"] }
        }
        func edit(_ vault: Substance<Vault>, _ change: @escaping @Sendable (inout Vault) -> Void) async {
            vault.bus.perform(mix: "chain") {
                vault.beginTransaction()
                change(&vault.prop)
                _ = vault.commitTransaction()
            }
            await vault.bus.flush()
        }
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let vault = Substance<Vault>(name: "vault", bus: bus)
        await edit(vault) {
            $0.owner = "ada"
            $0.token = "tok-SECRET"
            $0.credentials = Vault.Credentials(label: "home", pin: "pin-SECRET")
            $0._cache = 42
        }
        let lines = journal.jsonLines()
        #expect(lines.contains("ada") && lines.contains("home"))
        #expect(!lines.contains("SECRET") && !lines.contains("_cache"), "\(lines)")

        // Replayed into a substance with secrets of its own: those stay, the rest is the recording's.
        let fresh = Substance<Vault>(name: "vault", bus: Flux())
        await edit(fresh) {
            $0.token = "mine"
            $0.credentials.pin = "0000"
            $0._cache = 7
        }
        let entries = try MixJournal.Document(jsonLines: lines).entries
        let replay = await MixJournal.replay(entries, on: fresh.bus, substances: [fresh])
        #expect(replay.skipped.isEmpty, "\(replay)")
        #expect(
            fresh.state
                == Vault(
                    owner: "ada", token: "mine", credentials: Vault.Credentials(label: "home", pin: "0000"), _cache: 7))
    }

    @Test("an entry prints without values: the mixer by type and case, what each substance changed")
    func entryDescription() async throws {
        enum AuthMixers: SubstanceMixer {
            case login(password: String)
        }
        struct Account: State {
            var user = ""
        }
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let account = ReactiveSubstance<Account, AuthMixers>(name: "account", bus: bus) { define in
            define(mix: .login(password: "pw-SECRET")) { account, _, react, _ in
                account.prop.user = "ada"
                react()
            }
        }
        _ = await bus.dispatchAndWait(AuthMixers.login(password: "pw-SECRET").busName)
        let entry = try #require(journal.entries.first)
        #expect("\(entry)" == "mix #1 AuthMixers.login → account: user")
        withExtendedLifetime(account) {}
    }

    @Test("a payload value nested deeper than a line can hold is recorded as unrepresentable; its entry is written")
    func deepPayload() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        func nested(_ depth: Int) -> any Sendable { depth == 0 ? "leaf" : [nested(depth - 1)] as [any Sendable] }
        bus.dispatch("deep", payload: ["shallow": nested(3), "deep": nested(600)])
        await bus.flush()
        let payload = try #require(journal.entries.first?.payload)
        #expect(payload["shallow"] == .array([.array([.array([.string("leaf")])])]))
        #expect(payload["deep"]?.isRepresentable == false)
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        #expect(read.entries.count == 1, "the entry's line is written and read back")
    }

    @Test("payload values can be left out of the journal")
    func withoutPayloadValues() async {
        let bus = Flux()
        let journal = MixJournal(recordsPayloadValues: false)
        bus.use(journal)
        bus.dispatch("login", payload: ["password": "hunter2"])
        await bus.flush()
        #expect(journal.entries[0].payload == ["password": .unrepresentable(type: "String")])
        #expect(!journal.jsonLines().contains("hunter2"))
        // Not even kept in memory: an object in a payload is not held by the journal.
        final class Secret: Sendable {}
        weak var secret: Secret?
        do {
            let object = Secret()
            secret = object
            bus.dispatch("login", payload: ["token": object])
        }
        // Twice: the batch that ran the dispatch may still hold its item when the first resumes.
        await bus.flush()
        await bus.flush()
        #expect(secret == nil)
        #expect(journal.entries[1].payload == ["token": .unrepresentable(type: "Secret")])
    }

    /// The recorded session's two substances, named as the replay will name them.
    private struct Session {
        let bus = Flux()
        let editor: Editor
        let notes: Substance<EditorState>

        init() {
            editor = Editor(name: "editor", bus: bus)
            notes = Substance<EditorState>(name: "notes", bus: bus)
        }
    }

    /// Records `record(on:_:_:)` in a journal.
    private func recordedSession(recordsStates: Bool? = nil) async -> (Session, MixJournal) {
        let session = Session()
        let journal = MixJournal(recordsStates: recordsStates)
        session.bus.use(journal)
        await record(on: session.bus, session.editor, session.notes)
        return (session, journal)
    }

    @Test("a recorded session replays into fresh substances to the same states and the same changes")
    func replayInProcess() async throws {
        let (recorded, journal) = await recordedSession()
        let fresh = Session()
        let replay = await journal.replay(on: fresh.bus, domains: [EditorMixers.self], substances: [fresh.notes])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(replay.replayed == journal.entries.count)
        #expect(fresh.editor.state == recorded.editor.state)
        #expect(fresh.notes.state == recorded.notes.state)
        #expect(recorded.editor.state.text == "hello world" && recorded.editor.state.count == 3)
        #expect(recorded.notes.state.text == "note" && recorded.notes.state.count == 0)
    }

    @Test("a journal exported as JSON lines reads back and replays to the same result")
    func replayFromJSONLines() async throws {
        let (recorded, journal) = await recordedSession()
        let text = journal.jsonLines()
        // The starting states, then one line per entry.
        #expect(text.split(separator: "\n").count == journal.entries.count + 1)
        #expect(text.hasPrefix(#"{"flaskJournal":{"startStates":{"#), "\(text.prefix(80))")

        let entries = try MixJournal.entries(fromJSONLines: text)
        #expect(entries.map(\.mixer) == journal.entries.map(\.mixer))
        // A task records what it changed, not its whole states (a replay applies the changes).
        #expect(!text.contains(#""states""#))
        // A journal told to record a task's states writes them as JSON objects, not Base64.
        let (_, withStates) = await recordedSession(recordsStates: true)
        let statesText = withStates.jsonLines()
        let chainLine = try #require(statesText.split(separator: "\n").first { $0.contains(#""states""#) })
        #expect(chainLine.contains(#""states":{"notes":{"#), "\(chainLine)")
        // A journal written before (states as Base64) still reads, to the same states.
        let old = try #require(withStates.entries.first { $0.states != nil })
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var object = try #require(try JSONSerialization.jsonObject(with: try encoder.encode(old)) as? [String: Any])
        object["states"] = old.states!.mapValues { $0.base64EncodedString() }
        let oldLine = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let reread = try MixJournal.entries(fromJSONLines: oldLine)
        let states = try #require(reread.first?.states)
        #expect(
            try JSONSerialization.jsonObject(with: states["notes"]!) as? NSDictionary
                == JSONSerialization.jsonObject(with: old.states!["notes"]!) as? NSDictionary)
        #expect(entries[3].payload == ["tags": .array([.string("a"), .string("b")]), "weight": .double(2)])
        let fresh = Session()
        let replay = await MixJournal.replay(
            entries, on: fresh.bus, domains: [EditorMixers.self], substances: [fresh.notes])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.editor.state == recorded.editor.state)
        #expect(fresh.notes.state == recorded.notes.state)
    }

    @Test("a replay says what it skipped and where it diverged")
    func replayReportsProblems() async {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let editor = Editor(name: "editor", bus: bus)
        bus.dispatch(.increment)
        await bus.flush()
        #expect(editor.state.count == 1)

        // No domain given: the mixer cannot be found by name.
        let lost = await journal.replay(on: Flux())
        #expect(lost.skipped.map(\.reason) == ["its mixer domain EditorMixers is not among the domains given"])
        // A substance already ahead does not change the same way: counted as a divergence.
        let otherBus = Flux()
        let other = Editor(name: "renamed", bus: otherBus)
        let diverged = await journal.replay(on: otherBus, domains: [EditorMixers.self])
        #expect(diverged.divergences.count == 1)
        #expect(diverged.divergences.first?.replayed.map(\.description) == ["renamed: count"])
        #expect(other.state.count == 1)
    }

    @Test("payload values JSON cannot carry are kept by type and make the mix unreplayable, not wrong")
    func unrepresentablePayload() async throws {
        struct Token: Sendable {}
        #expect(JournalValue(Token()) == .unrepresentable(type: "Token"))
        #expect(JournalValue(Optional<Int>.none as Any) == .null)
        #expect(JournalValue(UInt8(7)) == .int(7))
        let values: [JournalValue] = [
            .double(2), .double(0.5), .int(2), .string("x"), .bool(true), .null, .object(["a": .array([.int(1)])]),
            .unrepresentable(type: "Token"),
        ]
        let data = try JSONEncoder().encode(values)
        #expect(try JSONDecoder().decode([JournalValue].self, from: data) == values)
        #expect(JournalValue.array([.int(1), .int(2)]).value as? [Int] == [1, 2])
    }

    @Test("Foundation numbers are recorded as what they hold, as dictionary references read them")
    func foundationNumbers() {
        #expect(JournalValue(NSNumber(value: 1)) == .int(1))
        #expect(JournalValue(NSNumber(value: true)) == .bool(true))
        #expect(JournalValue(NSNumber(value: 2.5)) == .double(2.5))
    }
}
