// The `///` samples of Sources/FlaskTools, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a compiled file under
// Tests/). Each fragment runs inside a function that declares what it uses; nothing calls them.
// They import FlaskTools and the core modules it is built on, not FlaskAPI: what a user who adds
// the FlaskTools product alone has. `swift-format-ignore` keeps a sample's own layout where
// swift-format would change it: the copy must match the comment line for line.
import FlaskTools
import FluxBus
import Foundation
import Substances

private enum FlaskToolsDocSamples {
    enum SessionMixers: SubstanceMixer {
        case login, logout
    }

    struct SessionState: State {
        var user: String?
    }

    typealias Session = ReactiveSubstance<SessionState, SessionMixers>

    struct TodoState: State {
        var todos: [String] = []
    }

    // SubstanceHistory
    // swift-format-ignore
    static func undoAndRedo(session: Session, todos: Substance<TodoState>) async {
        let history = SubstanceHistory(of: [session, todos], limit: 100, mergingWithin: .milliseconds(500))
        // ... a chain logs out and clears the todos: one step ...
        await history.undo()   // both come back
        await history.redo()
    }

    // MixJournal.replay(_:on:domains:substances:), of a document
    static func replayDocument(_ recorded: String, on bus: Flux, todos: Substance<TodoState>) async throws {
        let document = try MixJournal.Document(jsonLines: recorded)
        let result = await MixJournal.replay(document, on: bus, domains: [TodoMixers.self], substances: [todos])
        print(result.reproducesRecording ? "same" : "\(result)")
    }

    enum TodoMixers: SubstanceMixer {
        case clear
    }

    // MixDiffPrinter
    static func printDiffs(on bus: Flux) {
        bus.use(MixDiffPrinter())
        // mix #2 SessionMixers.login [user: String] → 1 observer; session: user (1 reactor); 0.05 ms
        //   session.user
        //   - nil
        //   + "ada"
    }

    // MixJournal
    static func saveJournal(on bus: Flux, to url: URL) throws {
        let journal = MixJournal(capacity: 1_000)
        bus.use(journal)
        // ... the app mixes ...
        try journal.jsonLines().write(to: url, atomically: true, encoding: .utf8)
    }

    // MixJournal.travel(_:to:substances:on:)
    static func travelBack(_ journal: MixJournal, on bus: Flux, todos: Substance<TodoState>) async {
        let document = journal.document
        let travel = await MixJournal.travel(document, to: 3, substances: [todos], on: bus)
        print(travel.moved)  // ["todos"]
    }

    // MixJournal.timelineHTML(title:)
    static func writeTimeline(of journal: MixJournal, to url: URL) throws {
        try journal.timelineHTML().write(to: url, atomically: true, encoding: .utf8)
    }
}
