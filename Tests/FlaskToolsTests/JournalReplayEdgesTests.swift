import FlaskLocking
import FlaskTestSupport
import FlaskTools
import FluxBus
import Foundation
import Reactors
import Substances
import Testing

// What a client written from docs/tools.md alone found at the journal's edges: secrets in a
// replayed chain, whole doubles read back as integers, values recorded without their `_`
// properties, the last line of an export, a journal used again.

private struct Account: State {
    var token = ""
    var note = ""
    static var secretKeys: Set<String> { ["token"] }
}

private struct Note: Codable, Sendable, Equatable {
    var text = ""
    var pinned = false
}

private struct Member: Codable, Sendable, Equatable {
    var user = ""
    var password: String?
}

private struct Notebook: State {
    var notes: [String: Note] = [:]
    var members: [Member] = []
    var owner: Member?
    var token = ""
    static var secretKeys: Set<String> { ["token", "members.password", "owner.password"] }
}

private struct Settings: State {
    struct Auth: Codable, Sendable, Equatable {
        var token = ""
        var user = ""
    }
    var auth = Auth()
    var theme = ""
    static var secretKeys: Set<String> { ["auth.token"] }
}

/// A substance whose name changes: a document renamed by its user.
private final class Renamable: Substance<Prices>, @unchecked Sendable {
    // `@unchecked Sendable` restated from `Substance`: its one property of its own is a
    // `LockedValue`, safe from any thread.
    let current = LockedValue("edges.rename.draft")
    override func name() -> String { current.withLock { $0 } }
}

private struct Prices: State {
    var price: Double = 5
    var prices: [Double] = []
    var count = 0
}

private struct Scratch: Codable, Sendable, Equatable {
    var name: String
    var _tmp = 0
}

private struct ScratchOptional: Codable, Sendable, Equatable {
    var name: String
    var _tmp: Int?
}

private struct Scratchpad: State {
    var items: [Scratch] = []
    var optionalItems: [ScratchOptional] = []
}

/// A state whose dictionaries have entries named like `_` properties (a client found replay
/// keeping them as if they were).
private struct Flags: State, Equatable {
    var flags: [String: Bool] = [:]
    var scores: [String: Int] = [:]
    var _cache = 0
}

@Suite("The journal at its edges: secrets replayed, whole doubles, values without their _ properties, used again")
struct JournalReplayEdgesTests {
    @Test(
        "a dictionary's entry whose key starts with _ is data: a replay starts without it and removes it, unlike a _ property"
    )
    func underscoreDictionaryKeyIsData() async throws {
        let (bus, journal) = journaledBus("edges.flags")
        let name = "edges.flags"
        let flags = Substance<Flags>(name: name, bus: bus)
        await ChainReaction().mix(flags) { $0.prop.scores["a"] = 1 }.reactAndWait()
        await ChainReaction().mix(flags) {
            $0.prop.flags["_x"] = true
            $0.prop.flags["y"] = true
        }
        .reactAndWait()
        await ChainReaction().mix(flags) { $0.prop.flags["_x"] = nil }.reactAndWait()
        // The journal records the entry, as it records any other.
        #expect(journal.jsonLines().contains("flags._x"))

        // Replayed into a substance that holds `_x` entries of its own, and a `_` property: the
        // journal's start has no `_x`, so neither has the replay at any step; the property keeps
        // the substance's own value.
        let replayBus = Flux(label: "edges.flags.replay")
        let fresh = Substance<Flags>(name: name, bus: replayBus)
        await ChainReaction().mix(fresh) {
            $0.prop.flags["_x"] = false
            $0.prop.scores["_y"] = 3
            $0.prop._cache = 9
        }
        .reactAndWait()
        let replay = await journal.replay(on: replayBus, substances: [fresh])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state.flags == ["y": true])
        #expect(fresh.state.scores == ["a": 1])
        #expect(fresh.state._cache == 9)
        withExtendedLifetime(flags) {}
    }

    @Test("a chain that sets a secret key replays without a divergence: the journal holds no value of it to compare")
    func secretInAChain() async throws {
        let (bus, journal) = journaledBus("edges.secret")
        let account = Substance<Account>(name: "edges.secret.account", bus: bus)
        await ChainReaction().mix(account) { $0.prop.token = "abc" }.reactAndWait()
        await ChainReaction().mix(account) {
            $0.prop.token = "def"
            $0.prop.note = "signed in"
        }.reactAndWait()
        #expect(!journal.jsonLines().contains("abc") && !journal.jsonLines().contains("def"))
        let (replay, fresh) = await replayed(
            journal, into: "edges.secret.account", as: Account.self, label: "edges.secret.replay")
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(replay.replayed == 2)
        // The replayed substance keeps its own secret; the rest is replayed.
        #expect(fresh.state.token == "" && fresh.state.note == "signed in")
    }

    @Test("a chain that sets a secret and adds an entry, or an element with a secret inside, replays and reproduces")
    func secretBesideAndInsideNewValues() async throws {
        let (bus, journal) = journaledBus("edges.notebook")
        let name = "edges.notebook"
        let notebook = Substance<Notebook>(name: name, bus: bus)
        await ChainReaction().mix(notebook) {
            $0.prop.notes["n1"] = Note(text: "x", pinned: true)
            $0.prop.token = "T"
        }.reactAndWait()
        await ChainReaction().mix(notebook) { $0.prop.members.append(Member(user: "ada", password: "pw")) }
            .reactAndWait()
        // An optional that appears, with a secret inside: its key is no difference either.
        await ChainReaction().mix(notebook) { $0.prop.owner = Member(user: "ada", password: "pw") }.reactAndWait()
        #expect(!journal.jsonLines().contains("\"pw\"") && !journal.jsonLines().contains("\"T\""))
        let (replay, fresh) = await replayed(journal, into: name, as: Notebook.self, label: "edges.notebook.replay")
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state.notes == ["n1": Note(text: "x", pinned: true)] && fresh.state.token == "")
        // The appended member is made again without the secret the journal never held.
        #expect(fresh.state.members == [Member(user: "ada", password: nil)])
        #expect(fresh.state.owner == Member(user: "ada", password: nil))
    }

    @Test("a chain that sets a secret two levels deep replays without a divergence")
    func deepSecret() async throws {
        let (bus, journal) = journaledBus("edges.deep")
        let settings = Substance<Settings>(name: "edges.deep.settings", bus: bus)
        await ChainReaction().mix(settings) { $0.prop.auth.token = "T" }.reactAndWait()
        await ChainReaction().mix(settings) {
            $0.prop.auth.token = "U"
            $0.prop.auth.user = "ada"
        }.reactAndWait()
        let (replay, fresh) = await replayed(
            journal, into: "edges.deep.settings", as: Settings.self, label: "edges.deep.replay")
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state.auth == Settings.Auth(token: "", user: "ada"))
    }

    @Test("a substance renamed between two of its commits starts its states again under its new name")
    func renamed() async throws {
        let (bus, journal) = journaledBus("edges.rename")
        let document = Renamable(bus: bus)
        await ChainReaction().mix(document) { $0.prop.count = 1 }.reactAndWait()
        document.current.withLock { $0 = "edges.rename.final" }
        await ChainReaction().mix(document) { $0.prop.count = 2 }.reactAndWait()
        let kept = journal.document
        let last = try #require(kept.entries.last)
        #expect(last.changes.first?.substance == "edges.rename.final" && last.changes.first?.start != nil)
        #expect(kept.states(after: last.serial)["edges.rename.final"]?.value(at: "count") == .int(2))
        #expect(kept.states(after: last.serial)["edges.rename.draft"]?.value(at: "count") == .int(1))
    }

    @Test("a journal of an earlier version, its whole doubles written as integers, replays without a divergence")
    func earlierWholeDoubles() async throws {
        let (bus, journal) = journaledBus("edges.earlier")
        let prices = Substance<Prices>(name: "edges.earlier.prices", bus: bus)
        await ChainReaction().mix(prices) { $0.prop.prices = [3] }.reactAndWait()
        // As an earlier version wrote it: the element as the integer JSON reads it as.
        let earlier = journal.jsonLines().replacingOccurrences(of: #"{"$double":"3.0"}"#, with: "3")
        #expect(earlier != journal.jsonLines())
        let replayBus = Flux(label: "edges.earlier.replay")
        let fresh = Substance<Prices>(name: "edges.earlier.prices", bus: replayBus)
        let replay = await MixJournal.replay(
            try MixJournal.Document(jsonLines: earlier), on: replayBus, substances: [fresh])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state.prices == [3])
    }

    @Test("two exports one after the other are refused at the second's line of starting states")
    func twoExports() async throws {
        let (bus, journal) = journaledBus("edges.two")
        let prices = Substance<Prices>(name: "edges.two.prices", bus: bus)
        await ChainReaction().mix(prices) { $0.prop.count = 1 }.reactAndWait()
        let lines = journal.jsonLines()
        #expect {
            try MixJournal.Document(jsonLines: lines + lines)
        } throws: { error in
            let error = error as? MixJournal.Document.LineError
            return error?.line == 3 && error?.reason.contains("after the first line") == true
        }
        // Blank lines before it do not count: it is still the first line.
        #expect(try MixJournal.Document(jsonLines: "\n\n" + lines).entries.count == 1)
    }

    @Test(
        "a whole Double reads back as a Double however it was recorded: a changed key, a value recorded whole, a start"
    )
    func wholeDoubles() async throws {
        let (bus, journal) = journaledBus("edges.doubles")
        let name = "edges.doubles.prices"
        let prices = Substance<Prices>(name: name, bus: bus)
        await ChainReaction().mix(prices) { $0.prop.count = 1 }.reactAndWait()
        await ChainReaction().mix(prices) { $0.prop.prices = [3, 4.5] }.reactAndWait()
        await ChainReaction().mix(prices) { $0.prop.price = 6 }.reactAndWait()
        let document = journal.document
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        for (source, kept) in [("document", document), ("JSON lines", read)] {
            // The starting state, where the price was never changed: 5.0, not 5.
            #expect(kept.startStates[name]?.value(at: "price") == .double(5), "\(source)")
            let serials = kept.entries.map(\.serial)
            #expect(serials.count == 3)
            let afterArray = try #require(kept.states(after: serials[1])[name], "\(source)")
            #expect(afterArray.value(at: "prices") == .array([.double(3), .double(4.5)]), "\(source)")
            #expect(afterArray.value(at: "price") == .double(5), "\(source)")
            let last = try #require(kept.states(after: serials[2])[name], "\(source)")
            #expect(last.value(at: "price") == .double(6), "\(source)")
            #expect(last.value(at: "count") == .int(1), "\(source)")
        }
    }

    @Test(
        "an element recorded whole without a _ property it cannot decode without is skipped, saying so; an optional one replays"
    )
    func valueWithoutItsInternalProperty() async throws {
        let (bus, journal) = journaledBus("edges.internal")
        let name = "edges.internal.pad"
        let pad = Substance<Scratchpad>(name: name, bus: bus)
        await ChainReaction().mix(pad) { $0.prop.optionalItems.append(ScratchOptional(name: "a", _tmp: 7)) }
            .reactAndWait()
        await ChainReaction().mix(pad) { $0.prop.items.append(Scratch(name: "b", _tmp: 7)) }.reactAndWait()
        #expect(!journal.jsonLines().contains("_tmp"))
        let (replay, fresh) = await replayed(journal, into: name, as: Scratchpad.self, label: "edges.internal.replay")
        #expect(replay.replayed == 1 && replay.divergences.isEmpty, "\(replay)")
        #expect(replay.skipped.count == 1, "\(replay)")
        #expect(replay.skipped.first?.reason.contains("does not decode as its state type") == true, "\(replay)")
        // The element whose `_` property is optional is made again without it.
        #expect(fresh.state.optionalItems == [ScratchOptional(name: "a", _tmp: nil)])
        #expect(fresh.state.items.isEmpty)
    }

    @Test("a replay given two substances of one name applies nothing to them, and says why")
    func twoGivenUnderOneName() async throws {
        let (bus, journal) = journaledBus("edges.twins")
        let name = "edges.twins.prices"
        let left = Substance<Prices>(name: name, bus: bus)
        let right = Substance<Prices>(name: name, bus: bus)
        await ChainReaction().mix(left) { $0.prop.count = 1 }.reactAndWait()
        await ChainReaction().mix(right) { $0.prop.count = 10 }.reactAndWait()
        let replayBus = Flux(label: "edges.twins.replay")
        let fresh = [Substance<Prices>(name: name, bus: replayBus), Substance<Prices>(name: name, bus: replayBus)]
        let replay = await journal.replay(on: replayBus, substances: fresh)
        #expect(!replay.reproducesRecording)
        // The start, the restart of the second and both chains: none applied to either.
        #expect(replay.skipped.count == 4, "\(replay)")
        #expect(replay.skipped.allSatisfy { $0.reason.contains("2 substances named \(name) were given") }, "\(replay)")
        #expect(fresh.allSatisfy { $0.state.count == 0 })
        _ = (left, right)
    }

    @Test("the JSON lines end each line with a newline, the last one too; an empty journal is empty text")
    func lastLineEnds() async throws {
        let bus = Flux(label: "edges.lines")
        let journal = MixJournal()
        #expect(journal.jsonLines() == "")
        bus.use(journal)
        let prices = Substance<Prices>(name: "edges.lines.prices", bus: bus)
        await ChainReaction().mix(prices) { $0.prop.count = 1 }.reactAndWait()
        let lines = journal.jsonLines()
        #expect(lines.hasSuffix("}\n") && !lines.hasSuffix("\n\n"))
        #expect(lines.split(separator: "\n", omittingEmptySubsequences: false).count == 3)
        let document = try MixJournal.Document(jsonLines: lines)
        #expect(document.jsonLines() == lines && document.entries.count == 1)
    }

    @Test("a journal removed, then cleared and used again, rebuilds the app's states from where each next commits")
    func usedAgainAfterClear() async throws {
        let (bus, journal) = journaledBus("edges.again")
        let name = "edges.again.prices"
        let prices = Substance<Prices>(name: name, bus: bus)
        await ChainReaction().mix(prices) { $0.prop.count = 1 }.reactAndWait()
        bus.remove(journal)
        await ChainReaction().mix(prices) { $0.prop.count = 2 }.reactAndWait()
        journal.clear()
        bus.use(journal)
        await ChainReaction().mix(prices) { $0.prop.price = 7 }.reactAndWait()
        let document = journal.document
        let serial = try #require(document.entries.last?.serial)
        #expect(document.entries.count == 1)
        let rebuilt = try #require(document.states(after: serial)[name])
        #expect(rebuilt.value(at: "count") == .int(2) && rebuilt.value(at: "price") == .double(7), "\(rebuilt)")
    }
}

/// `journal` replayed into a new substance of `S` named `name`, on a bus of its own labeled `label`.
private func replayed<S: State>(
    _ journal: MixJournal, into name: String, as _: S.Type, label: String
) async -> (MixJournal.Replay, Substance<S>) {
    let bus = Flux(label: label)
    let fresh = Substance<S>(name: name, bus: bus)
    return (await journal.replay(on: bus, substances: [fresh]), fresh)
}
