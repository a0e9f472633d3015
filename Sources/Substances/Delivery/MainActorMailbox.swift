import Dispatch
import FlaskLocking
import FluxBus

/// Work the buses send to the main actor (reactions of main-actor reactors, updates of observable
/// views), run there in the order it was sent.
///
/// One main-queue block runs every job sent before it started, rather than one block per job: a
/// bus that commits faster than the main queue wakes it once per batch, not once per reaction
/// (`DispatchQueue.main.async` alone tops out below what one bus produces, see
/// docs/performance.md). Between batches the block gives the main queue back, so a bus that never
/// stops does not starve the app's own main-queue work.
///
/// Jobs run in the order they were sent, from every bus: the process has one mailbox. Work an app
/// posts to the main queue itself is not ordered with them beyond that.
package final class MainActorMailbox: Sendable {
    /// The process's mailbox.
    package static let shared = MainActorMailbox()

    /// A job: a closure run once on the main actor.
    package typealias Job = @Sendable @MainActor () -> Void

    private struct Pending {
        var jobs: [Sent] = []
        /// Whether a main-queue block is on its way to run the jobs (so no other is needed).
        var scheduled = false
    }

    private let pending = LockedValue(Pending())

    /// A job as the mailbox keeps it: in a struct, so that the closure is stored as it is (kept in
    /// an array of closures, each would be wrapped in a thunk allocated at `send`).
    private struct Sent {
        let run: Job
    }

    package init() {}

    /// Sends `job` to the main actor; it runs after every job sent before it.
    package func send(_ job: @escaping Job) {
        let schedule = pending.withLock { pending in
            pending.jobs.append(Sent(run: job))
            if pending.scheduled { return false }
            pending.scheduled = true
            return true
        }
        if schedule { scheduleBatch() }
    }

    private func scheduleBatch() {
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated { runBatch() }
        }
    }

    /// Runs the jobs sent so far; schedules another batch if more came meanwhile.
    @MainActor private func runBatch() {
        var batch: [Sent] = []
        pending.withLock { swap(&$0.jobs, &batch) }
        for job in batch { job.run() }
        batch.removeAll(keepingCapacity: true)
        let more = pending.withLock { pending in
            guard pending.jobs.isEmpty else { return true }
            // Nothing came meanwhile: the next batch starts in this one's storage.
            swap(&pending.jobs, &batch)
            pending.scheduled = false
            return false
        }
        if more { scheduleBatch() }
    }
}

extension Flux {
    /// Suspends until every main-lane item enqueued before this call has run (as ``Flux/flush()``),
    /// then until the main actor has run what they sent it: the reactions of main-actor handlers
    /// and of `.mainQueue` delivery, observable views' updates. For tests of UI code: after it,
    /// every reaction to what was dispatched before has been delivered.
    ///
    /// It flushes first, so it also waits for the locks that pause the main lane. Reactions
    /// delivered to other actors are not waited for. Do not call it from a work item of this bus,
    /// nor where the main actor waits for this bus.
    public func flushToMainActor() async {
        await flush()
        // The main actor's mailbox runs jobs in the order they were sent, from every bus: once this
        // one runs, so did every reaction the flushed items sent.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            MainActorMailbox.shared.send { continuation.resume() }
        }
    }
}
