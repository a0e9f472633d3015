import FlaskLocking
@_spi(FlaskInternals) import FluxBus
import Substances

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

    /// The entry that restores `state` (on the bus), holding the substance weakly.
    fileprivate func historyEntry(restoring state: S) -> HistoryEntry {
        let reference = WeakSubstanceReference(self)
        return HistoryEntry(substance: ObjectIdentifier(self)) {
            guard let substance = reference.substance else { return nil }
            let current = substance.committedState
            substance.replaceState(with: state)
            return substance.historyEntry(restoring: current)
        }
    }
}

/// A substance held weakly, for a history entry. (`weak let`: set once, so `Sendable` as checked.)
private struct WeakSubstanceReference<S: State>: Sendable {
    weak let substance: Substance<S>?

    init(_ substance: Substance<S>) {
        self.substance = substance
    }
}

/// The observer that records one substance's commits. Bound to the substance (which holds it);
/// holds the substance weakly (a `weak let`, set once) so the two make no cycle.
final class HistoryRecorder<S: State>: SubstanceObserver, HistoryRecording, Sendable {
    private weak let substance: Substance<S>?
    private let log: HistoryLog

    init(substance: Substance<S>, log: HistoryLog) {
        self.substance = substance
        self.log = log
    }

    func start() {
        substance?.bind(self)
    }

    func stop() {
        substance?.unbind(self)
    }

    func substance(_ substance: any AnySubstance, didCommit changes: SubstanceChanges, lock: FluxLock?) {
        guard let old = changes.oldState(as: S.self), let subject = self.substance else { return }
        log.record(subject.historyEntry(restoring: old), item: subject.bus.workItemSerial)
    }
}
