// The `///` samples of Sources/Reactors, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a file of this folder).
// Each fragment runs inside a function that declares what it uses; nothing calls them. `Feed`
// (an `AppState` substance), `Session`, `CounterState` and `TestOwner` are the README samples'.
// `swift-format-ignore` keeps a sample's own layout where swift-format would change it (the spaces
// before an end-of-line comment, say): the copy must match the comment line for line.
import FlaskAPI
import Foundation
import Synchronization

private enum ReactorsDocSamples {
    struct TodoState: State {
        var items: [String] = []
        var hasUnsavedChanges = false
    }

    // ChainReaction
    static func chain(_ reactor: Reactor<TestOwner>, substanceA: Feed, substanceB: Feed) {
        reactor
            .mix(substanceA) { $0.prop.counter = 10 }
            .mix(substanceB) { $0.prop.text = "text" }
            .react()
    }

    // ChainReaction.mix(_:_:), the step that may abort
    static func logOut(_ reactor: Reactor<TestOwner>, session: Session, todos: Substance<TodoState>) async {
        await reactor
            .mix(session) { $0.prop.user = nil }
            .mix(todos) { todos, abort in
                guard !todos.prop.hasUnsavedChanges else { return abort() }
                todos.prop.items = []
            }
            .reactAndWait()
    }

    // FlaskReaction.commit
    static func commitOfAReaction(_ reactor: Reactor<TestOwner>) {
        reactor.handler = { _, reaction in
            print("\(reaction.commit.mix) from \(reaction.commit.origin.map { "\($0)" } ?? "?")")
        }
    }

    // Commit
    static func commitRecord(_ reactor: Reactor<TestOwner>) {
        reactor.handler = { _, reaction in
            let commit = reaction.commit
            print(commit.mix.name, commit.keys, commit.origin.map { "\($0)" } ?? "")
            // SessionMixers.login [user] Shop/LoginView.swift:42 in signIn()
        }
    }

    // SubstanceObserver
    final class Audit: SubstanceObserver {
        func didCommit(_ commit: Commit) {
            print(commit.mix, commit.keys, commit.origin.map { "\($0)" } ?? "")
        }
    }

    // ChainReaction.reactAndWait()
    static func clear(_ reactor: Reactor<TestOwner>, todos: Substance<TodoState>) async {
        let outcome = await reactor.mix(todos) { $0.prop.items = [] }.reactAndWait()
        if outcome.wasApplied { print("cleared") }
    }

    // FlaskReaction
    static func react(_ reactor: Reactor<TestOwner>, otherSubstance: Feed) {
        reactor.handler = { owner, reaction in
            reaction.on(AppState.prop.counter) { change in print(change.newValue() as Int? ?? 0) }
            reaction.on("info.nest.foo") { change in
                // ...
            }
            reaction.at(otherSubstance)?.on("title") { change in
                // ...
            }
            reaction.onLock?.release()
        }
    }

    // FlaskReaction: a lock released later
    static func releaseLater(_ reaction: FlaskReaction) {
        reaction.on(AppState.prop.asyncResult) { change in
            let lock = reaction.onLock
            DispatchQueue.main.asyncAfter(deadline: .now() + 2) { lock?.release() }
        }
    }

    // FlaskReactor
    // swift-format-ignore
    @MainActor
    final class CounterScreen: @MainActor FlaskReactor {
        let counter = Substance<CounterState>()
        var label = ""

        func flaskReactions(reaction: FlaskReaction) {
            reaction.on(CounterState.prop.counter) { change in label = "\(change.newValue() as Int? ?? 0)" }
        }

        func viewDidLoad() {
            Flask.attachReactor(to: self, mixing: [counter])   // attached on the main actor: reacts there
        }
    }

    // Reactor
    static func logCounter(of substance: Feed) {
        let log = CounterLog()  // a local type may be used above its declaration, which opens the sample
        final class CounterLog: Sendable {
            let entries = Mutex<[Int]>([])
        }
        let reactor = Flask.reactor(attachedTo: log, mixing: substance)
        reactor.handler = { log, reaction in
            reaction.on(AppState.prop.counter) { change in log.entries.withLock { $0.append(change.newValue() ?? 0) } }
        }
    }

    // ChainReaction.labeled(_:)
    static func moveCard(_ reactor: Reactor<TestOwner>, board: Feed, done: Feed) {
        reactor.mix(board) { $0.prop.counter -= 1 }.mix(done) { $0.prop.counter += 1 }.labeled("moveCard").react()
    }

    // Reactor.on(_:_:)
    static func declareCounter(of substance: Feed) {
        let log = CounterLog()
        final class CounterLog: Sendable {
            let entries = Mutex<[Int]>([])
        }
        let reactor = Flask.reactor(attachedTo: log, mixing: substance)
        reactor.on("counter") { log, change in log.entries.withLock { $0.append(change.newValue() ?? 0) } }
    }

    // Reactor.keys
    final class TitleView: Sendable {
        let store = Feed()

        func render(_ title: String?) {}

        func start() {
            let reactor = Flask.reactor(attachedTo: self, mixing: store)
            reactor.keys = ["title"]
            reactor.handler = { owner, reaction in
                reaction.on("title") { change in owner.render(change.newValue() as String?) }
            }
        }
    }

    // ReactorManager
    // swift-format-ignore
    static func manage(_ owner: TestOwner, substance: Feed) -> [any AnyReactor] {
        let reactor = ReactorManager.shared.reactor(attachedTo: owner, mixing: [substance])
        let reactors = ReactorManager.shared.reactors(of: owner)   // [reactor]
        ReactorManager.shared.detach(from: owner)
        return [reactor] + reactors
    }
}
