import FlaskLocking
import FlaskTestSupport
import FluxBus
import Reactors
import Testing

@testable import FlaskTools
@testable import Substances

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let instant = LockedValue(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(by duration: Duration) { instant.withLock { $0 += duration } }
}

@Suite("Undo and redo")
struct SubstanceHistoryTests {
    @Test("a substance of another bus is refused, reported, and never written by undo")
    func otherBusRefused() async {
        let bus = Flux(label: "first")
        let other = Flux(label: "second")
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        let editor = Editor(name: "editor", bus: bus)
        let stray = Editor(name: "stray", bus: other)
        let history = SubstanceHistory(of: [editor, stray])
        #expect(diagnostics.all.map(\.code) == [.historyAcrossBuses])
        #expect(diagnostics.all.first?.message.contains("stray (bus \"second\")") == true)
        bus.dispatch(.increment)
        await bus.flush()
        // The other bus keeps committing while undo runs: undo must not touch its substance.
        for _ in 0..<200 { other.dispatch(.increment) }
        #expect(await history.undo())
        await other.flush()
        #expect(editor.state.count == 0)
        #expect(stray.state.count == 200)
        #expect(history.undoCount == 0)
    }

    @Test("an undo a purge dropped returns false, its completion too, and undoes nothing", .hangGuard)
    func purgedUndo() async {
        let bus = Flux()
        let editor = Editor(name: "purged-undo", bus: bus)
        let history = SubstanceHistory(of: [editor])
        bus.dispatch(.increment)
        await bus.flush()
        let lock = bus.lock()
        let completed = Recorder<Bool>()
        history.undo { completed.append($0) }
        let awaited = Task { await history.undo() }
        while bus.lockReport().queuedCount < 2 { await Task.yield() }
        #expect(bus.purge() == 2)
        #expect(await awaited.value == false)
        #expect(completed.all == [false])
        lock.release()
        await bus.flush()
        #expect(editor.state.count == 1)
        #expect(history.undoCount == 1)
    }

    @Test("undo and redo say where they were asked for: the journal's entry and the commit's origin")
    func undoOrigin() async throws {
        let bus = Flux()
        let editor = Editor(name: "origin-undo", bus: bus)
        let history = SubstanceHistory(of: editor)
        let journal = MixJournal()
        bus.use(journal)
        bus.dispatch(.increment)
        await bus.flush()
        let undoLine = #line + 1
        #expect(await history.undo())
        let undone = try #require(journal.entries.last)
        #expect(undone.mixer == "undo" && undone.changes.map(\.substance) == ["origin-undo"])
        #expect(undone.origin == MixJournal.Origin(fileID: #fileID, line: UInt(undoLine), function: #function))
        let redoLine = #line + 1
        history.redo { _ in }
        await bus.flush()
        let redone = try #require(journal.entries.last)
        #expect(redone.mixer == "redo")
        #expect(redone.origin == MixJournal.Origin(fileID: #fileID, line: UInt(redoLine), function: #function))
    }

    @Test("undo and redo walk the states back and forth, as mixes that observers see")
    func undoRedo() async {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let history = SubstanceHistory(of: editor)
        let log = ChangeLog()
        editor.bind(log)
        bus.dispatch(.increment)
        bus.dispatch(.increment)
        bus.dispatch(.type, ["text": "a"])
        await bus.flush()
        #expect(history.undoCount == 3)
        await history.undo()
        await history.undo()
        await bus.flush()
        #expect(editor.state.count == 1 && editor.state.text == "")
        #expect(history.undoCount == 1 && history.redoCount == 2)
        await history.redo()
        await bus.flush()
        #expect(editor.state.count == 2 && editor.state.text == "")
        #expect(log.keys.suffix(3) == [["info", "info.words", "text"], ["count"], ["count"]])
        // A new change clears what could be redone.
        bus.dispatch(.increment, ["by": 10])
        await bus.flush()
        #expect(!history.canRedo)
        history.redo { done in #expect(!done) }
        await bus.flush()
        #expect(editor.state.count == 12)
    }

    @Test("undo with nothing to undo changes nothing")
    func nothingToUndo() async {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let history = SubstanceHistory(of: editor)
        let result = Recorder<Bool>()
        history.undo { result.append($0) }
        await bus.flush()
        #expect(result.all == [false])
        #expect(editor.state == EditorState())
    }

    @Test("the history keeps at most `limit` steps")
    func limit() async {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let history = SubstanceHistory(of: editor, limit: 2)
        for _ in 0..<5 { bus.dispatch(.increment) }
        await bus.flush()
        #expect(history.undoCount == 2)
        for _ in 0..<5 { await history.undo() }
        await bus.flush()
        #expect(editor.state.count == 3)
    }

    @Test("changes closer together than the merge interval are one undo step")
    func merging() async {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let clock = ManualClock()
        let history = SubstanceHistory(of: editor, mergingWithin: .milliseconds(500)) { clock.now }
        for letter in ["h", "e", "y"] {
            bus.dispatch(.type, ["text": letter])
            await bus.flush()
            clock.advance(by: .milliseconds(100))
        }
        clock.advance(by: .seconds(1))
        bus.dispatch(.type, ["text": "!"])
        await bus.flush()
        #expect(history.undoCount == 2)
        await history.undo()
        await bus.flush()
        #expect(editor.state.text == "hey")
        await history.undo()
        await bus.flush()
        #expect(editor.state.text == "")
    }

    @Test("a step whose merged changes cancel out is passed by: undo takes back the change before it")
    func cancelledStepPassedBy() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let editor = Editor(name: "editor", bus: bus)
        let clock = ManualClock()
        let history = SubstanceHistory(of: editor, mergingWithin: .milliseconds(500)) { clock.now }
        bus.dispatch(.type, ["text": "a"])
        await bus.flush()
        clock.advance(by: .seconds(1))
        // Up and down again, close together: one step that changes nothing.
        bus.dispatch(.increment, ["by": 1])
        await bus.flush()
        clock.advance(by: .milliseconds(100))
        bus.dispatch(.increment, ["by": -1])
        await bus.flush()
        #expect(history.undoCount == 2)
        #expect(await history.undo(), "an undo that changes something")
        #expect(editor.state.text == "")
        #expect(editor.state.count == 0)
        #expect(history.undoCount == 0)
        // The undo's entry changed the text, and names the mix that typed it.
        let undo = try #require(journal.entries.last)
        #expect(undo.mixer == "undo")
        #expect(undo.changes.map(\.substance) == ["editor"])
        #expect(undo.changes.first.map { Set($0.keys) } == ["text", "info", "info.words"])
        #expect(undo.historyStepMixes == [journal.entries[0].serial])
        // The step passed by is gone: a redo makes the text again, and nothing more.
        #expect(await history.redo())
        #expect(editor.state.text == "a")
        #expect(await history.redo() == false)
        // Only such a step: nothing to undo, and nothing changes.
        let other = Editor(name: "other", bus: bus)
        let otherHistory = SubstanceHistory(of: other, mergingWithin: .milliseconds(500)) { clock.now }
        bus.dispatch(.increment, ["by": 2])
        await bus.flush()
        clock.advance(by: .milliseconds(100))
        bus.dispatch(.increment, ["by": -2])
        await bus.flush()
        #expect(otherHistory.undoCount == 1)
        #expect(await otherHistory.undo() == false)
        #expect(otherHistory.undoCount == 0 && otherHistory.redoCount == 0)
        #expect(other.state.count == 0)
    }

    @Test("a change right after a redo is a step of its own, as after an undo: it does not merge into the redone step")
    func noMergeAfterRedo() async {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let clock = ManualClock()
        let history = SubstanceHistory(of: editor, mergingWithin: .milliseconds(500)) { clock.now }
        bus.dispatch(.type, ["text": "a"])
        await bus.flush()
        #expect(await history.undo())
        #expect(await history.redo())
        clock.advance(by: .milliseconds(100))
        bus.dispatch(.type, ["text": "b"])
        await bus.flush()
        #expect(history.undoCount == 2)
        #expect(await history.undo())
        #expect(editor.state.text == "a")
    }

    @Test("a history does not keep its substance alive, and stops recording when released")
    func lifetime() async {
        let bus = Flux()
        weak var weakEditor: Editor?
        var history: SubstanceHistory?
        do {
            let editor = Editor(name: "editor", bus: bus)
            weakEditor = editor
            history = SubstanceHistory(of: editor)
            #expect(await editor.observerCount() == 1)
            history = nil
            #expect(await editor.observerCount() == 0)
            history = SubstanceHistory(of: editor)
        }
        await bus.flush()
        #expect(weakEditor == nil)
        await history?.undo()
        await bus.flush()
    }

    @Test("an undo and a redo name the mixes of their step: in their commits, in a journal's entries and on its page")
    func historyStepNamed() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let clock = ManualClock()
        let editor = Editor(name: "step-named", bus: bus)
        let history = SubstanceHistory(of: editor, mergingWithin: .seconds(1), now: { clock.now })
        let sources = CommitSources()
        editor.bind(sources)
        // Two increments close together (one step), then one alone.
        bus.dispatch(.increment)
        await bus.flush()
        clock.advance(by: .milliseconds(500))
        bus.dispatch(.increment)
        await bus.flush()
        clock.advance(by: .seconds(5))
        bus.dispatch(.increment)
        await bus.flush()
        let made = sources.all.map(\.serial)
        #expect(made.count == 3 && sources.all.allSatisfy(\.commits.isEmpty))
        #expect(await history.undo())
        #expect(await history.undo())
        #expect(await history.redo())
        #expect(editor.state.count == 2)
        // The commits: each step's mixes by their commits' serials, oldest first.
        #expect(sources.all.dropFirst(3).map(\.commits) == [[made[2]], [made[0], made[1]], [made[0], made[1]]])
        // The journal: by its own serials.
        let entries = journal.entries
        #expect(entries.map(\.mixer) == ["increment", "increment", "increment", "undo", "undo", "redo"])
        let serials = entries.map(\.serial)
        #expect(
            entries.map(\.historyStepMixes) == [
                [], [], [], [serials[2]], [serials[0], serials[1]], [serials[0], serials[1]],
            ])
        // Through the JSON lines; a line without it (a journal written before) reads none.
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        #expect(read.entries.map(\.historyStepMixes) == entries.map(\.historyStepMixes))
        // Its lines, as the page says it.
        #expect(entries[3].description.hasPrefix("mix #\(serials[3]) "))
        #expect(entries[3].description.contains("undo (undoes #\(serials[2])) → "), "\(entries[3])")
        #expect(entries[5].description.contains("redo (redoes #\(serials[0]), #\(serials[1])) → "), "\(entries[5])")
        #expect(!entries[0].description.contains("does #"))
        // The page: a link to each.
        let page = journal.timelineHTML()
        #expect(page.contains("undoes <a href=\"#mix=\(serials[2])\">#\(serials[2])</a>"))
        #expect(
            page.contains(
                "redoes <a href=\"#mix=\(serials[0])\">#\(serials[0])</a>, <a href=\"#mix=\(serials[1])\">#\(serials[1])</a>"
            ))
        editor.unbind(sources)
    }

    @Test("an undo names only the mixes its journal holds: those made before it was in use are not named")
    func historyStepBeforeTheJournal() async {
        let bus = Flux()
        let editor = Editor(name: "step-before", bus: bus)
        let history = SubstanceHistory(of: editor)
        bus.dispatch(.increment)
        await bus.flush()
        let journal = MixJournal()
        bus.use(journal)
        #expect(await history.undo())
        #expect(journal.entries.map(\.mixer) == ["undo"])
        #expect(journal.entries.first?.historyStepMixes == [])
        // The commits name the mix all the same: the history knew it.
        #expect(await history.redo())
        #expect(journal.entries.map(\.mixer) == ["undo", "redo"])
    }

    @Test("a ring that wraps: an undo names what it held then, and the page says when a mix named has gone since")
    func historyStepRingWrapped() async {
        let bus = Flux()
        let journal = MixJournal(capacity: 3)
        bus.use(journal)
        let editor = Editor(name: "step-ring", bus: bus)
        let history = SubstanceHistory(of: editor)
        bus.dispatch(.increment)  // #1
        await bus.flush()
        bus.dispatch(.increment)  // #2
        await bus.flush()
        #expect(await history.undo())  // #3 undoes #2
        #expect(await history.undo())  // #4 undoes #1, which the ring then drops
        #expect(await history.redo())  // #5 redoes #1, no longer held
        let entries = journal.entries
        #expect(entries.map(\.serial) == [3, 4, 5])
        #expect(entries.map(\.historyStepMixes) == [[2], [1], []])
        let page = journal.timelineHTML()
        // Both gone from the ring since: said so, linked to nothing.
        #expect(page.contains("undoes <span class=\"muted\">#2 (no longer in the journal)</span>"))
        #expect(page.contains("undoes <span class=\"muted\">#1 (no longer in the journal)</span>"))
        #expect(!page.contains("href=\"#mix="))
    }

    @Test(
        "a chain over two substances is one mix an undo names once; a step merged from many names its first and last 16"
    )
    func historyStepChainAndBound() async {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let clock = ManualClock()
        let first = Editor(name: "step-first", bus: bus)
        let second = Editor(name: "step-second", bus: bus)
        let history = SubstanceHistory(of: [first, second], mergingWithin: .seconds(1), now: { clock.now })
        await ChainReaction().mix(first) { $0.prop.count += 1 }.mix(second) { $0.prop.count += 1 }.reactAndWait()
        let chain = journal.entries.last!.serial
        #expect(await history.undo())
        #expect(journal.entries.last?.historyStepMixes == [chain])
        #expect(first.state.count == 0 && second.state.count == 0)
        // Forty mixes a few milliseconds apart: one step, whose undo names the first and last 16.
        clock.advance(by: .seconds(10))
        let sources = CommitSources()
        first.bind(sources)
        for _ in 0..<40 {
            bus.dispatch(.increment)
            await bus.flush()
            clock.advance(by: .milliseconds(10))
        }
        let made = sources.all.map(\.serial)
        let typed = journal.entries.suffix(40).map(\.serial)
        #expect(await history.undo())
        #expect(first.state.count == 0)
        #expect(sources.all.last?.commits == Array(made.prefix(16) + made.suffix(16)))
        #expect(journal.entries.last?.historyStepMixes == Array(typed.prefix(16) + typed.suffix(16)))
        first.unbind(sources)
    }
}

/// The source of each commit of a substance: its serial and the mixes an undo or a redo names.
private final class CommitSources: SubstanceObserver {
    private let recorded = Recorder<(serial: UInt64, commits: [UInt64])>()
    var all: [(serial: UInt64, commits: [UInt64])] { recorded.all }
    func didCommit(_ commit: Commit) {
        recorded.append((commit.serial, commit.mix.historyStepCommits))
    }
}

@Suite("Undo and redo over several substances")
struct SharedHistoryTests {
    @Test("the steps of a substance gone away are not counted, and an undo passes them by to the next")
    func stepsOfAGoneSubstance() async {
        let bus = Flux()
        let todos = Editor(name: "todos", bus: bus)
        var sheet: Editor? = Editor(name: "sheet", bus: bus)
        let history = SubstanceHistory(of: [todos, sheet!])
        await sheet!.mixAndWait { $0.prop.text = "draft" }
        await todos.mixAndWait { $0.prop.count = 1 }
        await sheet!.mixAndWait { $0.prop.text = "draft 2" }
        #expect(history.undoCount == 3)
        // The sheet closes: its steps cannot come back.
        sheet = nil
        await bus.flush()
        #expect(history.undoCount == 1 && history.canUndo)
        // The sheet's last step is passed by: the todos' change is undone.
        #expect(await history.undo())
        #expect(todos.state.count == 0)
        #expect(history.undoCount == 0 && history.redoCount == 1)
        // Only the sheet's first step is left, and it cannot come back.
        #expect(await history.undo() == false)
        #expect(await history.redo())
        #expect(todos.state.count == 1)
    }

    @Test("a step of two substances, one of them gone away, restores the other, and redoes it")
    func stepPartlyGone() async {
        let bus = Flux()
        let todos = Editor(name: "todos", bus: bus)
        var sheet: Editor? = Editor(name: "sheet", bus: bus)
        let history = SubstanceHistory(of: [todos, sheet!])
        await ChainReaction().mix(todos) { $0.prop.count = 2 }.mix(sheet!) { $0.prop.text = "x" }.reactAndWait()
        sheet = nil
        await bus.flush()
        #expect(history.undoCount == 1)
        #expect(await history.undo())
        #expect(todos.state.count == 0)
        #expect(await history.redo())
        #expect(todos.state.count == 2)
    }

    @Test("a history whose one substance has gone away has nothing to undo")
    func everySubstanceGone() async {
        let bus = Flux()
        var editor: Editor? = Editor(name: "editor", bus: bus)
        let history = SubstanceHistory(of: editor!)
        await editor!.mixAndWait { $0.prop.text = "a" }
        await editor!.mixAndWait { $0.prop.text = "b" }
        editor = nil
        await bus.flush()
        #expect(!history.canUndo && history.undoCount == 0)
        #expect(await history.undo() == false)
    }

    @Test("a step one substance of which cancelled out restores the other alone, and the journal names that one")
    func stepHalfCancelled() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let session = Editor(name: "session", bus: bus)
        let todos = Editor(name: "todos", bus: bus)
        let clock = ManualClock()
        let history = SubstanceHistory(of: [session, todos], mergingWithin: .milliseconds(500)) { clock.now }
        await ChainReaction(bus: bus)
            .mix(session) { $0.prop.count = 1 }
            .mix(todos) { $0.prop.count = 1 }
            .reactAndWait()
        clock.advance(by: .milliseconds(100))
        await session.mixAndWait { $0.prop.count = 0 }
        #expect(history.undoCount == 1)
        #expect(await history.undo())
        #expect(session.state.count == 0 && todos.state.count == 0)
        let undo = try #require(journal.entries.last)
        #expect(undo.mixer == "undo")
        #expect(undo.changes.map(\.substance) == ["todos"])
        #expect(await history.redo())
        #expect(session.state.count == 0 && todos.state.count == 1)
    }

    @Test("a step's substances come back together: a reactor of either reads the others restored, as after a chain")
    func stepRestoredBeforeDelivered() async {
        // Found from outside: an undo restored and delivered one substance at a time, so a reactor
        // of the first read the second still as it was.
        let bus = Flux()
        let session = Editor(name: "session", bus: bus)
        let todos = Editor(name: "todos", bus: bus)
        let history = SubstanceHistory(of: [session, todos])
        await ChainReaction(bus: bus)
            .mix(session) { $0.prop.text = "ada" }
            .mix(todos) { $0.prop.count = 3 }
            .reactAndWait()
        final class Screen: Sendable {}
        let owner = Screen()
        let seen = Recorder<String>()
        let manager = ReactorManager()
        for substance in [session, todos] {
            let reactor = manager.reactor(attachedTo: owner, mixing: [substance])
            reactor.handler = { _, _ in
                seen.append("\(substance.name()): \(session.state.text) \(todos.state.count)")
            }
        }
        await bus.flush()
        #expect(await history.undo())
        #expect(Set(seen.all) == ["session:  0", "todos:  0"])
        seen.removeAll()
        #expect(await history.redo())
        #expect(Set(seen.all) == ["session: ada 3", "todos: ada 3"])
        manager.removeAll()
        withExtendedLifetime(owner) {}
    }

    @Test("a mix that changed two substances is undone as one step, and awaited")
    func chainIsOneStep() async {
        let bus = Flux()
        let session = Editor(name: "session", bus: bus)
        let todos = Editor(name: "todos", bus: bus)
        let history = SubstanceHistory(of: [session, todos])
        await session.mixAndWait { $0.prop.text = "ada" }
        await todos.mixAndWait { $0.prop.count = 3 }
        // One work item commits both: a logout that clears the todos.
        bus.perform {
            session.beginTransaction()
            todos.beginTransaction()
            session.prop.text = ""
            todos.prop.count = 0
            let sessionChanges = session.commitTransaction()
            let todoChanges = todos.commitTransaction()
            if let sessionChanges { session.deliver(sessionChanges, lock: nil) }
            if let todoChanges { todos.deliver(todoChanges, lock: nil) }
        }
        await bus.flush()
        #expect(history.undoCount == 3)
        #expect(await history.undo())
        // Both came back, in one step.
        #expect(session.state.text == "ada" && todos.state.count == 3)
        #expect(history.undoCount == 2 && history.redoCount == 1)
        #expect(await history.redo())
        #expect(session.state.text == "" && todos.state.count == 0)
        #expect(await history.undo())
        #expect(await history.undo())
        #expect(todos.state.count == 0 && session.state.text == "ada")
        #expect(await history.undo())
        #expect(session.state.text == "")
        #expect(await history.undo() == false)
    }
}
