import FlaskLocking

/// A lane that carries jobs from buses to where they must run (the main actor, say), in the order
/// they were sent, from every sender: the module that owns the destination gives the lane its
/// `wake` (how to get a batch run there) and runs each batch with ``runBatch(_:)``.
///
/// Senders wake the destination once per batch, not once per job: a bus that sends faster than the
/// destination runs jobs leaves one wake-up pending, and the batch it runs takes every job sent
/// before it started. Between batches the destination is woken again, so a sender that never stops
/// does not starve the destination's other work.
///
/// Generic over the job, and inlinable where jobs are sent, so that a job is stored as it is: a
/// closure of another isolation than the lane's code, kept in a wrapper closure, was allocated
/// per job.
package final class FluxDeliveryLane<Job: Sendable>: Sendable {
    @usableFromInline
    struct Pending: Sendable {
        @usableFromInline var jobs: [Job] = []
        /// Whether a batch is on its way to run the jobs (so no other wake-up is needed).
        @usableFromInline var scheduled = false

        @usableFromInline init() {}
    }

    @usableFromInline let pending = LockedValue(Pending())
    /// Gets ``runBatch(_:)`` called where the jobs run.
    @usableFromInline let wake: @Sendable (FluxDeliveryLane) -> Void

    /// A lane whose batches `wake` gets run where its jobs must run: it is called once per batch,
    /// from a sender's thread, and must arrange for `runBatch` to be called there soon.
    package init(wake: @escaping @Sendable (FluxDeliveryLane) -> Void) {
        self.wake = wake
    }

    /// Sends `job`; it runs after every job sent before it.
    @inlinable
    package func send(_ job: Job) {
        let schedule = pending.withLock { pending in
            pending.jobs.append(job)
            if pending.scheduled { return false }
            pending.scheduled = true
            return true
        }
        if schedule { wake(self) }
    }

    /// Runs the jobs sent so far with `run`, where they must run; wakes the destination again if
    /// more came meanwhile.
    @inlinable
    package func runBatch(_ run: (Job) -> Void) {
        var batch: [Job] = []
        pending.withLock { swap(&$0.jobs, &batch) }
        for job in batch { run(job) }
        batch.removeAll(keepingCapacity: true)
        let more = pending.withLock { pending in
            guard pending.jobs.isEmpty else { return true }
            // Nothing came meanwhile: the next batch starts in this one's storage.
            swap(&pending.jobs, &batch)
            pending.scheduled = false
            return false
        }
        if more { wake(self) }
    }
}
