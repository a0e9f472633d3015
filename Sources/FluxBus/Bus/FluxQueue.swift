/// The bus's pending work and locks: plain data, mutated only under the bus's mutex.
struct FluxQueue {
    /// Items paused by locks, in enqueue order.
    var main: [FluxItem] = []
    /// A main-lane batch that was interrupted (by a lock, or exclusive work) and the index of its
    /// first item not run: it runs before `main`. Kept whole, so an interruption costs O(1)
    /// however long the backlog is.
    var suspended: [FluxItem] = []
    var suspendedIndex = 0
    /// Items that run even while the main lane is paused, ahead of the main lane.
    var exclusive: [FluxItem] = []
    /// Open locks by serial.
    var locks = FluxOpenLocks()
    var lastLockSerial: UInt64 = 0
    /// Whether a drain is scheduled or running on the executor.
    var draining = false
    /// Bumped by every purge, so a drain knows its batch was purged.
    var purgeEpoch: UInt64 = 0
    /// The main-lane depth at which the bus reports a backlog (`Int.max`: never).
    var backlogMark = Flux.defaultBacklogMark
    /// Whether the next crossing of `backlogMark` is reported: cleared when one is, set again once
    /// the bus finds the backlog below the mark.
    var backlogArmed = true

    enum Lane { case main, exclusive }

    /// Whether there is something the drain could start now.
    var hasRunnableWork: Bool {
        !exclusive.isEmpty || (locks.isEmpty && (!main.isEmpty || hasSuspended))
    }

    var hasSuspended: Bool { suspendedIndex < suspended.count }

    /// How many main-lane items are waiting.
    var pendingMainCount: Int { suspended.count - suspendedIndex + main.count }

    /// The labels of the first `limit` main-lane items waiting, in the order they will run.
    func pendingMainLabels(limit: Int) -> [FluxMixerName] {
        var labels = suspended[suspendedIndex...].prefix(limit).map(\.label)
        labels += main.prefix(limit - labels.count).map(\.label)
        return labels
    }

    /// Keeps an interrupted main-lane batch to resume at `index` (the batch is swapped out: O(1)).
    mutating func suspend(_ batch: inout [FluxItem], at index: Int) {
        precondition(!hasSuspended, "a main-lane batch runs only once the suspended one is taken")
        swap(&suspended, &batch)
        suspendedIndex = index
    }

    /// Takes every main-lane and exclusive item out of the queue (for a purge).
    mutating func takeAll() -> [FluxItem] {
        var all = Array(suspended[suspendedIndex...])
        all.append(contentsOf: main)
        all.append(contentsOf: exclusive)
        suspended.removeAll()
        suspendedIndex = 0
        main.removeAll()
        exclusive.removeAll()
        return all
    }

    /// Opens a lock with the next serial.
    mutating func takeLock(
        bus: Flux, mixer: FluxMixerName?, autorelease: Bool, origin: FluxLock.Origin
    ) -> FluxLock {
        lastLockSerial += 1
        let lock = FluxLock(bus: bus, serial: lastLockSerial, mixer: mixer, autorelease: autorelease, origin: origin)
        locks.insert(lock)
        return lock
    }

    /// Whether the main lane just reached the backlog mark, and is to be reported (once per
    /// crossing). Called after each main-lane append: the count passes the mark one at a time.
    @inline(__always)
    mutating func reachedBacklogMark() -> Bool {
        guard main.count == backlogMark, backlogArmed else { return false }
        backlogArmed = false
        return true
    }

    /// Reports the next crossing again once the bus, about to run a batch or to stop draining,
    /// finds fewer items waiting than the mark (the batch included): the backlog has come down.
    mutating func rearmBacklog(batchItems: Int) {
        if !backlogArmed, batchItems + pendingMainCount + exclusive.count < backlogMark { backlogArmed = true }
    }

    /// Marks the queue as draining if there is runnable work and no drain is running.
    /// Returns whether the caller must schedule a drain.
    mutating func claimDrain() -> Bool {
        guard !draining, hasRunnableWork else { return false }
        draining = true
        return true
    }

    /// Swaps the next batch into `batch` (which must be empty), exclusive lane first, then an
    /// interrupted main-lane batch, then the main lane. Returns the lane, the purge epoch and the
    /// index to start at; nil, and stops draining, when nothing can run.
    mutating func takeBatch(into batch: inout [FluxItem]) -> (lane: Lane, epoch: UInt64, start: Int)? {
        if !exclusive.isEmpty {
            swap(&batch, &exclusive)
            return (.exclusive, purgeEpoch, 0)
        }
        if locks.isEmpty && hasSuspended {
            swap(&batch, &suspended)
            defer { suspendedIndex = 0 }
            rearmBacklog(batchItems: batch.count - suspendedIndex)
            return (.main, purgeEpoch, suspendedIndex)
        }
        if locks.isEmpty && !main.isEmpty {
            swap(&batch, &main)
            rearmBacklog(batchItems: batch.count)
            return (.main, purgeEpoch, 0)
        }
        rearmBacklog(batchItems: 0)
        draining = false
        return nil
    }
}
