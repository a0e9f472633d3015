import Archive
import FlaskTestSupport
import FlaskTesting
import FlaskTools
import FluxBus
import Foundation
import Reactors
import Substances
import Testing

@Suite("A jump in time: the substances take their states after a recorded mix")
struct JournalTravelTests {
    @Test("the states after the mix, as a commit observers receive and the journal records as travel")
    func travelAndReturn() async throws {
        let (bus, board, journal) = journaledBoard("travel.board")
        var states: [Board] = []
        for title in ["one", "two", "three"] {
            await ChainReaction().mix(board) {
                $0.prop.title = title
                $0.prop.order.append(title.count)
                $0.prop.selected = title == "two" ? Board.Card(id: 2, title: title) : nil
            }.reactAndWait()
            states.append(board.state)
        }
        let commits = LockedValue<[[String]]>([])
        let observer = CommitKeys(commits)
        board.bind(observer)
        let serials = journal.entries.map(\.serial)
        let travel = await MixJournal.travel(journal.document, to: serials[1], substances: [board], on: bus)
        #expect(travel.moved == ["board"] && travel.left.isEmpty)
        #expect(board.state == states[1])
        #expect(commits.withLock { $0 }.last?.contains("title") == true)
        #expect(commits.withLock { $0.count } == 1, "one commit, which observers receive")
        let recorded = try #require(journal.entries.last)
        #expect(recorded.mixer == "travel" && recorded.kind == .task)
        // Back to the present: the state after the last mix before the jump.
        _ = await MixJournal.travel(journal.document, to: serials[2], substances: [board], on: bus)
        #expect(board.state == states[2])
        board.unbind(observer)
    }

    @Test("serial 0 is before the first mix kept; a serial not kept moves nothing and says so")
    func startAndUnknown() async throws {
        let (bus, board, journal) = journaledBoard("travel.start")
        let before = board.state
        await ChainReaction().mix(board) { $0.prop.title = "one" }.reactAndWait()
        let unknown = await MixJournal.travel(journal.document, to: 999, substances: [board], on: bus)
        #expect(unknown.moved.isEmpty && unknown.left["board"] == "the journal keeps no mix #999")
        #expect(board.state.title == "one")
        let start = await MixJournal.travel(journal.document, to: 0, substances: [board], on: bus)
        #expect(start.moved == ["board"])
        #expect(board.state == before)
    }

    @Test(
        "entries(after:) gives the entries newer than a serial, and newestSerial the newest, in a ring that wrapped too"
    )
    func entriesAfter() async throws {
        let (_, board, journal) = journaledBoard("travel.after", capacity: 3)
        #expect(journal.entries(after: 0).isEmpty && journal.newestSerial == nil)
        for title in ["a", "b", "c", "d", "e"] {
            await ChainReaction().mix(board) { $0.prop.title = title }.reactAndWait()
        }
        let kept = journal.entries.map(\.serial)
        #expect(kept.count == 3)
        #expect(journal.entries(after: 0).map(\.serial) == kept)
        #expect(journal.entries(after: kept[0]).map(\.serial) == Array(kept.dropFirst()))
        #expect(journal.entries(after: kept[2]).isEmpty)
        // Chunks, newest first: before a serial, the newest so many.
        #expect(journal.entries(after: 0, before: kept[2], newest: 1).map(\.serial) == [kept[1]])
        #expect(journal.entries(after: 0, before: kept[2]).map(\.serial) == Array(kept.prefix(2)))
        #expect(journal.entries(after: 0, newest: 2).map(\.serial) == Array(kept.suffix(2)))
        #expect(journal.entries(after: 0, before: kept[0]).isEmpty)
        #expect(journal.entries(after: 0, before: 0).isEmpty && journal.entries(after: 0, newest: 0).isEmpty)
        #expect(journal.newestSerial == kept[2], "the newest, in a ring that wrapped")
    }

    @Test("an archived substance and one the journal never saw are left as they are, saying why")
    func leftAlone() async throws {
        let bus = Flux(label: "travel.left")
        let store = InMemoryArchiveStore()
        let archived = Substance<Board>(
            name: "archived", archive: true, archiveSettings: ArchiveSettings(archiver: Archiver(store: store)),
            bus: bus)
        let unseen = Substance<Board>(name: "unseen", bus: bus)
        let journal = MixJournal()
        bus.use(journal)
        await ChainReaction().mix(archived) { $0.prop.title = "one" }.reactAndWait()
        await ChainReaction().mix(archived) { $0.prop.title = "two" }.reactAndWait()
        let first = try #require(journal.entries.first?.serial)
        let travel = await MixJournal.travel(journal.document, to: first, substances: [archived, unseen], on: bus)
        #expect(travel.moved.isEmpty)
        #expect(travel.left["archived"] == "it archives its state")
        #expect(travel.left["unseen"] == "the journal has no state of it")
        #expect(archived.state.title == "two", "an archive never stores a travelled state")
    }
}

/// A board named `board` on a bus of its own, with a journal recording it.
private func journaledBoard(_ label: String, capacity: Int = 10_000) -> (Flux, Substance<Board>, MixJournal) {
    let bus = Flux(label: label)
    let board = Substance<Board>(name: "board", bus: bus)
    let journal = MixJournal(capacity: capacity)
    bus.use(journal)
    return (bus, board, journal)
}

/// Records the keys of each commit it receives.
private final class CommitKeys: SubstanceObserver {
    let commits: LockedValue<[[String]]>
    init(_ commits: LockedValue<[[String]]>) { self.commits = commits }
    func didCommit(_ commit: Commit) {
        let keys = commit.keys.map { "\($0)" }
        commits.withLock { $0.append(keys) }
    }
}
