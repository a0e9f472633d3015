import Archive
import FluxBus
import Foundation

extension Substance {
    /// Writes the committed state to the archive now, whatever ``shouldArchive`` says and whatever
    /// write is pending.
    ///
    /// Runs after every mix queued before it (it is a bus item); the write replaces a pending one
    /// and is encoded and stored on the archive's thread, so it never blocks the caller or the bus.
    /// To wait for it, use ``archiveNowAndWait()``.
    public func archiveNow() {
        archiveNow(then: nil)
    }

    /// Writes the committed state now, as ``archiveNow()``, and calls `completion` on the archive's
    /// thread once it is stored (with nil) or could not be (with the problem).
    func archiveNow(then completion: (@Sendable (ArchiveProblem?) -> Void)?) {
        bus.perform(
            { [self] in write(committedState, completion: completion) },
            // Purged before it ran: the state as published now is written all the same.
            whenDropped: { [self] in write(state, completion: completion) })
    }

    private func write(_ value: S, completion: (@Sendable (ArchiveProblem?) -> Void)?) {
        let report = reportArchiveProblem
        let encode = encoding(value, for: archiver())
        // A failure is reported by the archiver when it starts an episode; the write stays pending
        // and is retried.
        archiver().writeNow(
            key: archiveKey(), owner: self, onFailure: report, onRecovery: reportArchiveRecovery, encode: encode
        ) { problem in
            completion?(problem)
        }
    }

    /// Writes the committed state to the archive now, as ``archiveNow()``, and returns once it is
    /// stored.
    ///
    /// ```swift
    /// try await settings.archiveNowAndWait()
    /// ```
    ///
    /// - Throws: the `ArchiveProblem` when the state could not be encoded or stored (it is also
    ///   reported through the bus's diagnostics).
    public func archiveNowAndWait() async throws(ArchiveProblem) {
        let problem = await withCheckedContinuation { (continuation: CheckedContinuation<ArchiveProblem?, Never>) in
            archiveNow(then: { problem in continuation.resume(returning: problem) })
        }
        if let problem { throw problem }
    }

    /// Suspends until the state committed before this call is stored, or throws the problem of the
    /// write that should have stored it; returns at once for a substance that does not archive.
    ///
    /// A write waiting for its delay starts now, and callers that ask while one is under way share
    /// the next (group commit): a server that acknowledges each request after `stored()` pays one
    /// write, and one `fsync`, per batch of requests, and loses no acknowledged commit to a crash.
    /// After an awaited dispatch, ``MixOutcome/stored()`` does it for every substance the mix
    /// committed.
    ///
    /// ```swift
    /// func place(_ order: Order, in orders: Orders) async throws -> String {
    ///     await Flask.apply(PlaceOrder(order: order), on: orders.bus)
    ///     try await orders.stored()
    ///     return "ok"  // on disk: safe to acknowledge
    /// }
    /// ```
    public func stored() async throws(ArchiveProblem) {
        guard !archiveDisabled() else { return }
        // A commit whose state may have been seen is published before its write is scheduled:
        // its scheduling is waited for (rare: the bus is between the two).
        await archiveScheduling.waitForScheduling()
        try await archiver().stored(key: archiveKey())
    }

    /// Throws unless this substance owns its archive: call it at launch, once the substance is
    /// made (its restore claimed the archive), to stop at once when another live process owns it,
    /// rather than serve requests whose changes are never stored. Does nothing for a substance
    /// that does not archive.
    ///
    /// ```swift
    /// let notes = Substance<NotesState>(name: "notes", archive: true)
    /// do {
    ///     try notes.claimArchive()
    /// } catch {
    ///     print("cannot start: \(error)")  // another process archives the notes
    /// }
    /// ```
    ///
    /// - Throws: the `ArchiveProblem` (see `Archiver.confirmOwnership(of:store:)`): `keyInUse`
    ///   when another live owner held the archive when this substance restored it, or holds it now;
    ///   `ownershipLost` once the archive's directory or lock file was removed or replaced.
    public func claimArchive() throws(ArchiveProblem) {
        guard !archiveDisabled() else { return }
        try archiver().confirmOwnership(of: archiveKey())
    }

    /// Deletes the archived state and any write pending for it.
    public func purgeArchive() {
        let key = archiveKey()
        do {
            try archiver().remove(key: key)
        } catch {
            reportArchiveProblem(
                ArchiveProblem(key: key, kind: .storeFailed(operation: "delete"), reason: "\(type(of: error))"))
        }
    }

    /// Restores the archived state at creation: what can be read is restored, the rest takes its
    /// defaults, and problems are reported. Claims the archive key for this substance.
    func restoreArchive() {
        let restoration = archiver().restore(S.self, key: archiveKey(), defaultValue: S(), owner: self)
        for problem in restoration.problems { reportArchiveProblem(problem) }
        if restoration.found { setInitialState(restoration.value) }
    }

    /// Called on the bus after every commit while archiving is on: schedules the debounced write,
    /// with the commit's patch (what `changes` changed, nil: nothing) when `patching`.
    func scheduleArchiveWrite(of value: S, changes: SubstanceChanges?, patching: Bool) {
        var patch: (@Sendable () throws -> ArchivePatch?)?
        if patching {
            if let capture = ArchivePatchCapture(changes, of: value, plan: plan) {
                patch = { try capture.patch() }
            } else {
                // Not property by property: this write and every later one go whole.
                archivePatching.stop()
            }
        }
        let archiver = archiver()
        archiver.scheduleWrite(
            key: archiveKey(), after: archiveDelay(), maxDelay: archiveMaxDelay(), owner: self,
            encode: encoding(value, for: archiver), patch: patch, onFailure: reportArchiveProblem,
            onRecovery: reportArchiveRecovery)
    }

    /// Encodes `value` whole (on the archive thread), and learns from it whether patches may
    /// follow (see `ArchivePatching`).
    ///
    /// It holds the archiver's patching threshold, not the archiver: the write waits in that
    /// archiver, and holding it kept an archiver of the substance's own alive as long as a write
    /// was pending, with its store and the store's claim of the key, after the substance and every
    /// other reference were gone. Freed, an archiver stores its pending writes at once.
    private func encoding(_ value: S, for archiver: Archiver) -> @Sendable () throws -> Data {
        let patching = archivePatching
        let plan = plan
        let threshold = archiver.patchingThreshold
        return {
            let data = try ArchiveEncoder().encode(value)
            patching.learn(fromWhole: data.count, threshold: threshold) {
                ArchivePatchCapture.encodesByProperty(value, plan: plan)
            }
            return data
        }
    }

    static func report(_ recovery: ArchiveRecovery, of reference: SubstanceReference) {
        reference.bus.report(
            .archiveWriteRecovered, "\(reference.nameInReports): \(recovery)")
    }

    static func report(_ problem: ArchiveProblem, of reference: SubstanceReference) {
        let code: FluxDiagnostic.Code =
            switch problem.kind {
            case .storeFailed(let operation): operation == "read" ? .archiveUnreadable : .archiveWriteFailed
            case .encodingFailed: .archiveWriteFailed
            case .unreadable: .archiveUnreadable
            case .partiallyRestored: .archivePartiallyRestored
            case .keyInUse: .archiveKeyInUse
            case .ownershipLost: .archiveOwnershipLost
            case .notApplied: .archiveWriteFailed
            }
        reference.bus.report(code, "\(reference.nameInReports): \(problem)")
    }
}
