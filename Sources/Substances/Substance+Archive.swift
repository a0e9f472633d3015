import Archive
import FluxBus
import Foundation

extension Substance {
    /// Writes the committed state to the archive now, whatever ``shouldArchive`` says.
    ///
    /// Runs after every mix queued before it (it is a bus item) and stores on the archiver's queue,
    /// so it never blocks the caller.
    public func archiveNow() {
        bus.perform { [self] in
            let value = committedState
            let key = archiveKey()
            let store = archiver()
            store.scheduleWrite(
                key: key, after: 0, encode: { try JSONEncoder().encode(value) }, onFailure: reportArchiveProblem)
        }
    }

    /// Deletes the archived state and any write pending for it.
    public func purgeArchive() {
        let key = archiveKey()
        do {
            try archiver().remove(key: key)
        } catch {
            reportArchiveProblem(ArchiveProblem(key: key, kind: .storeFailed(operation: "delete"), reason: "\(error)"))
        }
    }

    /// Restores the archived state at creation: what can be read is restored, the rest takes its
    /// defaults, and problems are reported.
    func restoreArchive() {
        let restoration = archiver().restore(S.self, key: archiveKey(), defaultValue: S())
        for problem in restoration.problems { reportArchiveProblem(problem) }
        if restoration.found { setInitialState(restoration.value) }
    }

    /// Called on the bus after every commit while archiving is on: schedules the debounced write.
    func scheduleArchiveWrite(of value: S) {
        let delay = archiveDelay()
        archiver().scheduleWrite(
            key: archiveKey(), after: delay, encode: { try JSONEncoder().encode(value) },
            onFailure: reportArchiveProblem)
    }

    static func report(_ problem: ArchiveProblem, of reference: SubstanceReference) {
        let code: FluxDiagnostic.Code =
            switch problem.kind {
            case .storeFailed: .archiveWriteFailed
            case .unreadable, .partiallyRestored: .archiveUnreadable
            }
        reference.bus.report(code, "\(reference.name): \(problem)")
    }
}
