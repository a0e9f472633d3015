// Samples of docs/ that are not seed samples, compiled as they appear there.
import FlaskAPI
import Foundation
import Synchronization

struct SampleSettings: Codable {
    var volume = 5
}

func useFileArchives(in directory: URL) throws {
    Archiver.shared.store = try FileArchiveStore(directory: directory)
}

func acknowledge(_ outcome: MixOutcome) async -> Bool {
    do {
        try await outcome.stored()
        return true
    } catch let problem where problem.kind == .keyInUse {
        // Another process owns this archive: nothing of this request was stored.
        return false
    } catch {
        return false
    }
}

func saveAndRestore(settings: SampleSettings, archiver: Archiver) -> SampleSettings {
    archiver.scheduleWrite(key: "settings", after: 2) { try JSONEncoder().encode(settings) }
    archiver.flush()
    return archiver.restore(SampleSettings.self, key: "settings", defaultValue: SampleSettings()).value
}

// docs/getting-started.md: a reactor that declares its keys.
@MainActor
final class UserLabel {
    var text = ""

    func start() {
        let reactor = Flask.reactor(attachedTo: self, mixing: session)
        reactor.keys = ["user"]
        reactor.mainActorHandler = { label, reaction in
            reaction.on("user") { change in label.text = change.newValue() ?? "nobody" }
        }
    }
}

// docs/getting-started.md: misuse reports sent to the app's log.
func logDiagnostics(to log: @escaping @Sendable (String) -> Void) {
    Flask.diagnostics = { diagnostic in log("[\(diagnostic.code)] \(diagnostic.message)") }
}

// docs/getting-started.md: a reactor over two substances.
final class Totals: Sendable {
    let lines = Mutex<[String]>([])

    func start(counter: Substance<CounterState>) {
        let reactor = Flask.reactor(attachedTo: self, mixing: [session, counter])
        reactor.handler = { [weak counter] totals, reaction in
            reaction.at(session)?.on("user") { _ in totals.lines.withLock { $0.append("user changed") } }
            guard let counter else { return }
            reaction.at(counter)?.on("counter") { change in
                let count: Int = change.newValue() ?? 0
                totals.lines.withLock { $0.append("count: \(count)") }
            }
        }
    }
}

// docs/getting-started.md: a Sendable owner that reacts on the bus.
final class AuditLog: Sendable {
    let lines = Mutex<[String]>([])

    func start() {
        let reactor = Flask.reactor(attachedTo: self, mixing: session)
        reactor.handler = { log, reaction in
            reaction.on("user") { change in
                let user: String? = change.newValue()
                log.lines.withLock { $0.append("user: \(user ?? "nobody")") }
            }
        }
    }
}

// docs/getting-started.md: the seed's style, an enum mixer with a payload.
enum ProfileMixers: SubstanceMixer {
    case rename
}

struct ProfileState: State {
    var name = ""
}

func makeProfile() -> ReactiveSubstance<ProfileState, ProfileMixers> {
    ReactiveSubstance<ProfileState, ProfileMixers>(name: "profile") { define in
        define(mix: .rename) { profile, payload, react, abort in
            guard let name = payload?["name"] as? String else { return abort() }
            profile.prop.name = name
            react()
        }
    }
}

// docs/big-collections.md
func bigCollections(_ reactor: Reactor<TestOwner>) {
    struct Board: State {
        var cards: BigDictionary<String, Card> = [:]
        var order: BigArray<Int> = []
    }

    let board = Substance<Board>(name: "board")
    reactor.mix(board) { board in
        board.prop.cards["c42"]?.title = "Ship it"
        board.prop.order.append(42)
    }.react()
}
