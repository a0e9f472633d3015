// The `///` samples of Sources/Substances, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a file of this folder).
// Each fragment runs inside a function that declares what it uses; nothing calls them. `AppState`,
// `CounterState`, `EnvMixers`, `SessionState`, `SettingsState`, `TodoState` and `Session` are the
// README samples'. `swift-format-ignore` keeps a sample's own layout where swift-format would change
// it (the spaces before an end-of-line comment, say): the copy must match the comment line for line.
import FlaskAPI
import Foundation

private enum SubstancesDocSamples {
    enum SessionMixers: SubstanceMixer {
        case login, logout
    }

    struct Rename: FlaskAction {
        let title: String
    }

    struct FeedState: State {
        var items: [String] = []
    }

    struct NotesState: State {
        var notes: [String] = []
    }

    // Substance.claimArchive()
    // swift-format-ignore
    static func claimArchive() {
        let notes = Substance<NotesState>(name: "notes", archive: true)
        do {
            try notes.claimArchive()
        } catch {
            print("cannot start: \(error)")  // another process archives the notes
        }
    }

    struct DocumentState: State {
        var title = ""
    }

    // NoMixers
    static func noMixers() {
        struct Rename: FlaskAction {
            let title: String
        }

        let document = ReactiveSubstance<DocumentState, NoMixers>(name: "document") { define in
            define(Rename.self) { document, rename, react, _ in
                document.prop.title = rename.title
                react()
            }
        }
        _ = document
    }

    // SubstanceChange
    static func readValues(of reaction: FlaskReaction) {
        reaction.on(AppState.prop.counter) { change in
            let old: Int? = change.oldValue()
            let new: Int? = change.newValue()
            print("counter: \(old ?? 0) -> \(new ?? 0)")
        }
    }

    // FlaskAction
    static func typedAction() {
        struct Login: FlaskAction {
            let user: String
        }

        let session = ReactiveSubstance<SessionState, SessionMixers>(name: "session") { define in
            define(Login.self) { session, action, react, abort in
                guard !action.user.isEmpty else { return abort() }
                session.prop.user = action.user
                react()
            }
        }

        Flask.substances(reactTo: Login(user: "ada"))
        _ = session
    }

    // FlaskAction.secretKeys
    struct SignIn: FlaskAction, Codable {
        let user: String
        let password: String
        static var secretKeys: Set<String> { ["password"] }
    }

    // MixOutcome
    static func logIn() async {
        let outcome = await Flask.apply(SessionMixers.login, payload: ["user": "ada"])
        guard outcome.wasApplied else {
            // stopped (outcome.stop says by whom and why), aborted, or no substance defines the mixer
            return
        }
        for changes in outcome.changes { print(changes.keys) }
    }

    // MixerDefinitions
    static func defineApp() -> ReactiveSubstance<AppState, EnvMixers> {
        let app = ReactiveSubstance<AppState, EnvMixers>(name: "app") { define in
            define(mix: .Login) { app, payload, react, abort in
                app.prop.title = "signed"
                react()
            }
            define(Rename.self) { app, action, react, abort in
                app.prop.title = action.title
                react()
            }
        }
        return app
    }

    // ReactiveSubstance (the first declaration is also SubstanceMixer's sample)
    // swift-format-ignore
    static func defineAppWithItsMixers() {
        enum EnvMixers: SubstanceMixer { case Login, Logout }

        let app = ReactiveSubstance<AppState, EnvMixers>(name: "app") { define in
            define(mix: .Login) { app, payload, react, abort in
                app.prop.title = "signed"
                react()
            }
            define(Rename.self) { app, action, react, abort in   // a typed action (FlaskAction)
                app.prop.title = action.title
                react()
            }
        }
        _ = app
    }

    // ReactiveSubstance, the seed's subclass
    final class AppReactiveSubstance: ReactiveSubstance<AppState, EnvMixers>, @unchecked Sendable {
        override func defineMixers() {
            define(mix: .Login) { payload, react, abort in
                self.prop.title = "signed"
                react()
            }
        }
    }

    // ArchiveSettings
    static func makeDrafts() -> Substance<AppState> {
        let drafts = Substance<AppState>(
            name: "drafts", archive: true,
            archiveSettings: ArchiveSettings(delay: 1, maxDelay: 3))
        return drafts
    }

    // ReactiveSubstance.init(name:archive:archiveSettings:bus:mixers:)
    static func defineLogin() -> ReactiveSubstance<AppState, EnvMixers> {
        let app = ReactiveSubstance<AppState, EnvMixers>(name: "app") { define in
            define(mix: .Login) { app, payload, react, abort in
                app.prop.title = "signed"
                react()
            }
        }
        return app
    }

    // Substance.changes(of:bufferingPolicy:) (also SubstanceChangeStream's sample)
    static func printCounts(of substance: Substance<CounterState>) async {
        for await changes in substance.changes(of: ["counter"]) {
            print(changes.change("counter")?.newValue() as Int? ?? 0)
        }
    }

    // Substance.changes(of:bufferingPolicy:), by key path
    static func printTypedCounts(of substance: Substance<CounterState>) async {
        for await change in substance.changes(of: \.counter) { print(change.newValue) }
    }

    // SubstanceObservation
    @MainActor func counterView(of substance: Substance<CounterState>) -> Int {
        let view = substance.observable()
        return view.counter
    }

    // FlaskDictRef, FlaskDictRef.updating(_:to:) and FlaskDictRef.escapedKey(_:)
    // swift-format-ignore
    static func dictionaries(_ reaction: FlaskReaction) {
        let substance = Substance<AppState>()  // the local `AppState` below, which opens the sample
        struct AppState: State {
            var info: FlaskDictRef?
        }
        // in a mixer:
        substance.prop.info = FlaskDictRef(["foo": "bar", "nest": ["data": "some"]])
        // in a reactor:
        reaction.on("info.nest.data") { change in print(change.newValue() as String? ?? "nil") }

        substance.prop.info = substance.prop.info?.updating("foo", to: "baz")

        reaction.on("info." + FlaskDictRef.escapedKey("a.b")) { change in   // "info.a\\.b"
            // ...
        }
    }

    // FlaskRef
    struct UIState: State {
        var controller = FlaskRef<AnyObject>(nil)
    }

    // Substance+Archive: archiveNowAndWait()
    static func saveAndWait(_ settings: Substance<SettingsState>) async throws {
        try await settings.archiveNowAndWait()
    }

    // Substance
    static func substances() -> [any AnySubstance] {
        let feed = Substance<FeedState>()
        let settings = Substance<SettingsState>(name: "settings", archive: true)
        return [feed, settings]
    }

    // Substance.stored()
    struct OrderState: State {
        var orders: [String] = []
    }

    struct Order: Sendable {
        let item: String
    }

    struct PlaceOrder: FlaskAction {
        let order: Order
    }

    typealias Orders = ReactiveSubstance<OrderState, SessionMixers>

    // swift-format-ignore
    func place(_ order: Order, in orders: Orders) async throws -> String {
        await Flask.apply(PlaceOrder(order: order), on: orders.bus)
        try await orders.stored()
        return "ok"  // on disk: safe to acknowledge
    }

    // MixOutcome.stored()
    static func loginDurably() async throws {
        struct Login: FlaskAction {
            let user: String
        }
        try await Flask.apply(Login(user: "ada")).stored()
    }
}

// State.secretKeys
private enum SecretKeysDocSample {
    struct Account: State {
        var user = ""
        var token = ""
        static var secretKeys: Set<String> { ["token"] }
    }
}

// State: its own namespace, since its `AppState` is not the README's.
private enum StateDocSample {
    struct AppState: State {
        enum prop: StateProp { case counter, text }
        var counter = 0
        var text = ""
    }
}

private enum BigCollectionDocSamples {
    struct Item: Codable, Sendable {
        var title: String
        var done = false
    }

    // BigDictionary
    static func bigDictionary(_ reactor: Reactor<TestOwner>, reaction: FlaskReaction) {
        struct Board: State {
            var cards: BigDictionary<String, Card> = [:]
        }
        let board = Substance<Board>(name: "board")
        // in a mixer: one entry changed, the rest shared
        reactor.mix(board) { $0.prop.cards["c42"]?.title = "Ship it" }.react()
        // in a reactor: the entry's key, with its old and new values, as for a plain dictionary
        reaction.on("cards.c42") { change in print(change.newValue() ?? "removed") }
    }

    // BigArray
    static func bigArray(_ reactor: Reactor<TestOwner>) {
        struct Todos: State {
            var items: BigArray<Item> = []
        }
        let todos = Substance<Todos>(name: "todos")
        // in a mixer: one element changed, one added, the rest shared
        reactor.mix(todos) { todos in
            todos.prop.items[0].done.toggle()
            todos.prop.items.append(Item(title: "new"))
        }.react()
    }
}
