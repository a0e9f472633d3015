import FlaskTestSupport
import FluxBus
import Foundation

@testable import Substances

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

/// Reads each commit's old and new values as they arrive, keeping every third commit's changes
/// (the others are left to be recycled).
final class ValueReader: ChangesStayOnBus {
    let seen = Recorder<String>()
    let kept = Recorder<SubstanceChanges>()

    func didCommit(_ commit: Commit) {
        let changes = commit.changes
        let counter = changes.change("counter")
        let text = changes.change("text")
        let old = counter?.oldValue() as Int? ?? -1
        let new = counter?.newValue() as Int? ?? -1
        seen.append("\(old)->\(new) \(text?.oldValue() as String? ?? "?")->\(text?.newValue() as String? ?? "?")")
        if seen.count % 3 == 0 { kept.append(changes) }
    }
}

/// Keeps the changes of every second commit it is told of, as an observer whose changes stay on
/// the bus must not: what shows that held changes keep their own commit's state (see
/// `StateChanges`). The others are let go, so the kept ones are refilled objects, which read their
/// new state in the substance's slot until they are held at a commit.
final class ChangesKeeper: ChangesStayOnBus {
    let kept = Recorder<SubstanceChanges>()
    private let commits = Recorder<Int>()

    func didCommit(_ commit: Commit) {
        let changes = commit.changes
        commits.append(commits.count + 1)
        if commits.count.isMultiple(of: 2) { kept.append(changes) }
    }
}

/// Records its id when a commit reaches it.
final class OrderedObserver: SubstanceObserver {
    let id: Int
    let order: Recorder<Int>

    init(id: Int, order: Recorder<Int>) {
        self.id = id
        self.order = order
    }

    func didCommit(_ commit: Commit) {
        order.append(id)
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

extension Substance where S == CounterState {
    /// Commits `counter` and `text` as one transaction on the bus and waits for it.
    func commit(counter: Int, text: String) async {
        await mixAndWait {
            $0.prop.counter = counter
            $0.prop.text = text
        }
    }
}

/// A text of `value` long enough to be stored out of line: a state holding it is not plain data.
@Sendable func outOfLineText(_ value: Int) -> String { "text \(value), long enough to be stored out of line" }

/// Reduces two states with a plan (layout path or forced Codable path) and returns changed keys.
func changedKeys<S: State>(_ old: S, _ new: S, codablePath: Bool = false) -> [String] {
    let plan = ReductionPlan(for: S.self, forceCodablePath: codablePath)
    let substance = Substance<S>(bus: Flux())
    return StateReducer.reduce(old, new, plan: plan, reference: substance.reference)?.keys.sorted() ?? []
}

func changes<S: State>(_ old: S, _ new: S, codablePath: Bool = false) -> SubstanceChanges? {
    let plan = ReductionPlan(for: S.self, forceCodablePath: codablePath)
    let substance = Substance<S>(bus: Flux())
    return StateReducer.reduce(old, new, plan: plan, reference: substance.reference)
}

/// A middleware with a `willMix` and no `didMix`: it counts the mixers it sees.
final class PassingOnly: FluxMiddleware {
    let seen = Recorder<FluxMixerName>()

    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        seen.append(event.mixer)
        return .pass
    }
}

/// A middleware that reads each report's records and keeps the substances' entries of every
/// other mix.
final class RecordKeeper: FluxMiddleware {
    let serials = Recorder<UInt64>()
    let entries = Recorder<MixOutcome.Entry>()
    let descriptions = Recorder<String>()

    func didMix(_ report: FluxMixReport) {
        serials.append(report.serial)
        for description in report.summary.recordDescriptions { descriptions.append(description) }
        if report.serial % 2 == 1 {
            for case let entry as MixOutcome.Entry in report.records { entries.append(entry) }
        }
    }
}
