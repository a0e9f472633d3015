import FlaskLocking
import FluxBus

/// A substance that a history can record (every `Substance` is one).
protocol HistorySubject: AnySubstance {
    func makeHistoryRecorder(log: HistoryLog) -> any HistoryRecording
}

/// A history's observer of one substance.
protocol HistoryRecording: Sendable {
    func start()
    func stop()
}

extension Substance: HistorySubject {
    func makeHistoryRecorder(log: HistoryLog) -> any HistoryRecording {
        HistoryRecorder(substance: self, log: log)
    }

    /// The entry that restores `state` (on the bus), holding the substance weakly (through its
    /// ``SubstanceReference``, the one weak holder of a substance).
    fileprivate func historyEntry(restoring state: S) -> HistoryEntry {
        let reference = self.reference
        return HistoryEntry(
            substance: ObjectIdentifier(self), reference: reference,
            restore: { source in
                guard let substance = reference.substance as? Substance<S> else { return nil }
                let current = substance.committedState
                // A state no key of which differs (the step's changes cancelled out) is not
                // committed: the undo passes the step by, rather than commit nothing.
                guard StateReducer.reduce(current, state, plan: substance.plan, reference: reference) != nil else {
                    return nil
                }
                // Committed now, delivered once every substance of the step is: they come back
                // together, as a chain's substances do.
                let changes = substance.commitState(state, source: source)
                return HistoryRestore(
                    inverse: substance.historyEntry(restoring: current),
                    deliver: { if let changes { substance.deliver(changes, lock: nil) } })
            })
    }
}

/// The observer that records one substance's commits. Bound to the substance (which holds it);
/// holds the substance weakly, through its ``SubstanceReference``, so the two make no cycle.
final class HistoryRecorder<S: State>: SubstanceObserver, HistoryRecording, Sendable {
    private let reference: SubstanceReference
    private let log: HistoryLog

    init(substance: Substance<S>, log: HistoryLog) {
        self.reference = substance.reference
        self.log = log
    }

    private var substance: Substance<S>? { reference.substance as? Substance<S> }

    func start() {
        substance?.bind(self)
    }

    func stop() {
        substance?.unbind(self)
    }

    func didCommit(_ commit: Commit) {
        guard let old = commit.changes.oldState(as: S.self), let subject = self.substance else { return }
        log.record(subject.historyEntry(restoring: old), item: commit.serial)
    }
}
