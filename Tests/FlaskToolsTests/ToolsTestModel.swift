import FlaskTestSupport
import FlaskTools
import FluxBus
import Substances

/// A small editor, mixed by named mixers: the model of the journal, undo and probe tests.
struct EditorState: State, Equatable {
    struct Info: Codable, Sendable, Equatable {
        var tag = ""
        var words = 0
    }
    var text = ""
    var count = 0
    var info = Info()
    var _cursor = 0
}

enum EditorMixers: SubstanceMixer {
    case type, increment, tag, clear, refuse
}

final class Editor: ReactiveSubstance<EditorState, EditorMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .type) { payload, react, abort in
            guard let text = payload?["text"] as? String else { return abort() }
            self.prop.text += text
            self.prop.info.words = self.prop.text.split(separator: " ").count
            self.prop._cursor += text.count
            react()
        }
        define(mix: .increment) { payload, react, _ in
            self.prop.count += payload?["by"] as? Int ?? 1
            react()
        }
        define(mix: .tag) { payload, react, _ in
            let tags = payload?["tags"] as? [String] ?? []
            let weight = payload?["weight"] as? Double ?? 0
            self.prop.info.tag = tags.joined(separator: ",") + (weight > 0 ? "@\(weight)" : "")
            react()
        }
        define(mix: .clear) { _, react, _ in
            self.prop = EditorState()
            react()
        }
        define(mix: .refuse) { _, _, abort in
            self.prop.count = -1
            abort()
        }
    }
}

extension Flux {
    func dispatch(_ mixer: EditorMixers, _ payload: FluxPayload? = nil) {
        dispatch(mixer.busName, payload: payload)
    }
}

extension Substance {
    /// Runs `body` as one committed transaction on the bus and waits for it.
    func mixAndWait(_ body: @escaping @Sendable (Substance<S>) -> Void) async {
        bus.perform { [self] in
            beginTransaction()
            body(self)
            if let changes = commitTransaction() { deliver(changes, lock: nil) }
        }
        await bus.flush()
    }
}

/// Records every commit a substance delivers.
final class ChangeLog: SubstanceObserver {
    /// Stands for a reactor in these tests.
    var countsAsReactor: Bool { true }
    struct Entry: Sendable {
        let substance: String
        let keys: [String]
        let changes: SubstanceChanges
    }

    let entries = Recorder<Entry>()

    func didCommit(_ commit: Commit) {
        let changes = commit.changes
        entries.append(Entry(substance: commit.substance.name(), keys: changes.keys.sorted(), changes: changes))
    }

    var keys: [[String]] { entries.all.map(\.keys) }
}

/// A bus labeled `label`, with a journal recording it (of `capacity` entries, the default's when
/// nil).
func journaledBus(_ label: String, capacity: Int? = nil) -> (Flux, MixJournal) {
    let bus = Flux(label: label)
    let journal = capacity.map { MixJournal(capacity: $0) } ?? MixJournal()
    bus.use(journal)
    return (bus, journal)
}
