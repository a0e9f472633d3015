import FlaskTestSupport
import FlaskTools
import FluxBus
import Foundation
import Substances
import Testing

@Suite("Where a mix was dispatched from, in every tool")
struct OriginToolsTests {
    @Test("the journal records it, writes it in its JSON lines, reads it back, and the page shows it")
    func journal() async throws {
        let bus = Flux(label: "origin.journal")
        let editor = Editor(name: "editor", bus: bus)
        let journal = MixJournal()
        bus.use(journal)
        let line: UInt = #line + 1
        bus.dispatch(EditorMixers.increment.busName)
        await bus.flush()
        let entry = try #require(journal.entries.first)
        #expect(
            entry.origin
                == MixJournal.Origin(
                    fileID: "FlaskToolsTests/OriginToolsTests.swift", line: line, function: "journal()"))
        let lines = journal.jsonLines()
        #expect(lines.contains("\"origin\":{"))
        let read = try MixJournal.entries(fromJSONLines: lines)
        #expect(read.first?.origin == entry.origin)
        #expect(journal.timelineHTML().contains("OriginToolsTests.swift:\(line) in journal()"))
        withExtendedLifetime(editor) {}
    }

    @Test("the logger and the diff printer end a mix's line with it")
    func printers() async {
        let bus = Flux(label: "origin.printers")
        let editor = Editor(name: "editor", bus: bus)
        let lines = Recorder<String>()
        bus.use(FluxLogger { lines.append($0) })
        bus.use(MixDiffPrinter { lines.append($0) })
        let line: UInt = #line + 1
        bus.dispatch(EditorMixers.increment.busName)
        await bus.flush()
        let from = "from FlaskToolsTests/OriginToolsTests.swift:\(line) in printers()"
        #expect(lines.all.count == 2)
        #expect(lines.all.allSatisfy { $0.contains(from) }, "\(lines.all)")
        withExtendedLifetime(editor) {}
    }

    @Test("a lock report names where each queued item was dispatched from")
    func lockReport() async {
        let bus = Flux(label: "origin.locks")
        let lock = bus.lock()
        let line: UInt = #line + 1
        bus.dispatch(EditorMixers.increment.busName)
        let report = bus.lockReport()
        #expect(report.queuedOrigins.first??.line == line)
        #expect(
            "\(report)".contains(
                "EditorMixers.increment (FlaskToolsTests/OriginToolsTests.swift:\(line) in lockReport())"))
        lock.release()
        await bus.flush()
    }
}
