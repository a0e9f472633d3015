/// The bus's pending work and locks: plain data, mutated only under the bus's mutex.
struct FluxQueue {
    /// Items paused by locks, in enqueue order.
    var main: [FluxItem] = []
    /// Items that run even while the main lane is paused, ahead of the main lane.
    var exclusive: [FluxItem] = []
    /// Open locks by serial.
    var locks: [UInt64: FluxLock] = [:]
    var lastLockSerial: UInt64 = 0
    /// Whether a drain is scheduled or running on the executor.
    var draining = false
    /// Bumped by every purge, so a drain knows its batch was purged.
    var purgeEpoch: UInt64 = 0

    enum Lane { case main, exclusive }

    /// Whether there is something the drain could start now.
    var hasRunnableWork: Bool {
        !exclusive.isEmpty || (locks.isEmpty && !main.isEmpty)
    }

    /// Marks the queue as draining if there is runnable work and no drain is running.
    /// Returns whether the caller must schedule a drain.
    mutating func claimDrain() -> Bool {
        guard !draining, hasRunnableWork else { return false }
        draining = true
        return true
    }

    /// Swaps the next batch into `batch` (which must be empty), exclusive lane first.
    /// Returns nil, and stops draining, when nothing can run.
    mutating func takeBatch(into batch: inout [FluxItem]) -> (lane: Lane, epoch: UInt64)? {
        if !exclusive.isEmpty {
            swap(&batch, &exclusive)
            return (.exclusive, purgeEpoch)
        }
        if locks.isEmpty && !main.isEmpty {
            swap(&batch, &main)
            return (.main, purgeEpoch)
        }
        draining = false
        return nil
    }
}
