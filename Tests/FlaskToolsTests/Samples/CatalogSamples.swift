// The Swift samples of Sources/FlaskTools/FlaskTools.docc, compiled as they appear there
// (DocumentationSamplesTests checks that every block of the catalog is in a compiled file), and
// run: `CatalogSamplesTests` replays what `recordMemos()` records. They import FlaskTools and the
// core modules it is built on, not FlaskAPI: what a user who adds the FlaskTools product has.
import FlaskTools
import FluxBus
import Foundation
import Substances
import Testing

func debug(_ bus: Flux) -> MixJournal {
    let journal = MixJournal(capacity: 1_000)
    bus.use(journal)
    bus.use(MixDiffPrinter())
    return journal
}

enum MemoMixers: SubstanceMixer {
    case write
}

struct MemoState: State, Equatable {
    var text = ""
    var words = 0
}

func makeMemos(on bus: Flux) -> ReactiveSubstance<MemoState, MemoMixers> {
    ReactiveSubstance<MemoState, MemoMixers>(name: "memos", bus: bus) { define in
        define(mix: .write) { memos, payload, react, abort in
            guard let text = payload?["text"] as? String else { return abort() }
            memos.prop.text = text
            memos.prop.words = text.split(separator: " ").count
            react()
        }
    }
}

func recordMemos() async -> String {
    let bus = Flux(label: "memos")
    let journal = MixJournal()
    bus.use(journal)
    let memos = makeMemos(on: bus)
    bus.dispatch(MemoMixers.write, payload: ["text": "hello"])
    bus.dispatch(MemoMixers.write, payload: ["text": "hello world"])
    await bus.flush()
    bus.remove(journal)
    print(memos.state.text)  // hello world
    return journal.jsonLines()
}

func replayMemos(_ jsonLines: String) async throws -> Bool {
    let entries = try MixJournal.entries(fromJSONLines: jsonLines)
    let bus = Flux(label: "replay")
    let memos = makeMemos(on: bus)
    let replay = await MixJournal.replay(entries, on: bus, domains: [MemoMixers.self], substances: [memos])
    return replay.reproducesRecording && memos.state.words == 2
}

func writeTimeline(of jsonLines: String, to url: URL) throws {
    let document = try MixJournal.Document(jsonLines: jsonLines)
    try document.timelineHTML(title: "Memos").write(to: url, atomically: true, encoding: .utf8)
}

@Suite("FlaskTools catalog samples")
struct CatalogSamplesTests {
    @Test("a recorded session replays, and its timeline page is written")
    func recordAndReplay() async throws {
        let jsonLines = await recordMemos()
        #expect(try await replayMemos(jsonLines))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("memos-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: url) }
        try writeTimeline(of: jsonLines, to: url)
        #expect(try String(contentsOf: url, encoding: .utf8).contains("hello world"))
        #expect(debug(Flux()).entries.isEmpty)
    }
}
