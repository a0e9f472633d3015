/// The bus's pending work and locks: plain data, mutated only under the bus's mutex.
struct FluxQueue {
    /// The main lane: items dispatched, in enqueue order (paused while a lock is open), in chunks.
    var main = FluxLane()
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
    /// The main-lane depth at which producers that may wait do (`Int.max`: never).
    var backlogLimit = Flux.defaultBacklogLimit
    /// Producer threads sleeping until the bus takes the main lane.
    var threadsWaitingForRoom = 0
    /// Producer tasks suspended until the bus takes the main lane.
    var tasksWaitingForRoom: [FluxRoomWaiter] = []
    /// The number of the last task that waited for room.
    var lastRoomWaiter: UInt64 = 0
    /// Changes whenever the bus makes room for waiting producers: a sleeping thread goes on once
    /// it differs from what it saw.
    var roomGeneration: UInt64 = 0

    /// The batch the bus is running, as counts of the items the drain has run (see
    /// `Flux.itemsRun`): it started at `batchStart` and ends at `batchEnd`. The items of the batch
    /// not run yet are waiting too: a bus that woke late takes many at once, and counting only the
    /// queue missed the backlog.
    var batchStart: UInt64 = 0
    var batchEnd: UInt64 = 0

    enum Lane { case main, exclusive }

    /// Whether there is something the drain could start now.
    var hasRunnableWork: Bool {
        !exclusive.isEmpty || (locks.isEmpty && (!main.isEmpty || hasSuspended))
    }

    var hasSuspended: Bool { suspendedIndex < suspended.count }

    /// How many main-lane items are waiting.
    var pendingMainCount: Int { suspended.count - suspendedIndex + main.count }

    /// The labels of the first `limit` main-lane items waiting, in the order they will run, and
    /// where each was dispatched from.
    func pendingMainLabels(limit: Int) -> [(label: FluxMixerName, origin: FluxOrigin?)] {
        var labels = suspended[suspendedIndex...].prefix(limit).map { ($0.label, $0.event.origin) }
        labels += main.prefix(limit - labels.count).map { ($0.label, $0.event.origin) }
        return labels
    }

    /// Whether the main lane holds as many items as the producers' limit.
    var isFull: Bool { pendingMainCount >= backlogLimit }

    /// Whether a producer that found the lane full must wait for room: not while a lock pauses
    /// the lane, since the producer may be the very thread (or task) that would release it.
    var makesProducersWait: Bool { isFull && locks.isEmpty }

    /// Whether a producer waits for room.
    var roomWanted: Bool { threadsWaitingForRoom > 0 || !tasksWaitingForRoom.isEmpty }

    /// Who to wake when the lane has room again.
    struct Room {
        var wakesThreads: Bool
        var tasks: [FluxRoomWaiter]
    }

    /// The producers to wake now that the lane has room, if it has; nil while it is still full.
    mutating func makeRoom() -> Room? {
        guard !isFull else { return nil }
        roomGeneration &+= 1
        defer { tasksWaitingForRoom = [] }
        return Room(wakesThreads: threadsWaitingForRoom > 0, tasks: tasksWaitingForRoom)
    }

    /// Keeps an interrupted main-lane batch to resume at `index` (the batch is swapped out: O(1)).
    mutating func suspend(_ batch: inout [FluxItem], at index: Int) {
        precondition(!hasSuspended, "a main-lane batch runs only once the suspended one is taken")
        swap(&suspended, &batch)
        suspendedIndex = index
    }

    /// Takes every main-lane and exclusive item out of the queue (for a purge).
    /// Bookkeeping on the exclusive lane (observers and middleware added or removed, counts asked
    /// for) stays: a purge drops work, not the bus's own upkeep.
    ///
    /// Also returns the suspended batch whole, its items already run included, for the caller to
    /// let go of once the queue's lock is released: an item that ran may hold the last reference
    /// to what it worked on (a chain step, its substance), whose `deinit` may enqueue (a reactor's
    /// route, its upkeep) and so take this lock. Nothing is freed under the lock.
    mutating func takeAll() -> (items: [FluxItem], spent: [FluxItem]) {
        var all = Array(suspended[suspendedIndex...])
        all.append(contentsOf: main.takeAll())
        all.append(contentsOf: exclusive.filter { !$0.survivesPurge })
        var spent: [FluxItem] = []
        swap(&spent, &suspended)
        suspendedIndex = 0
        // Copied into `all` above: removing them here frees none.
        exclusive.removeAll { !$0.survivesPurge }
        return (all, spent)
    }

    /// Opens a lock with the next serial. Producers waiting for room are let go (see `Flux.lock()`):
    /// `room` names them, nil when none waits.
    mutating func takeLock(
        bus: Flux, mixer: FluxMixerName?, autorelease: Bool, origin: FluxLock.Origin
    ) -> (lock: FluxLock, room: Room?) {
        lastLockSerial += 1
        let lock = FluxLock(bus: bus, serial: lastLockSerial, mixer: mixer, autorelease: autorelease, origin: origin)
        locks.insert(lock)
        return (lock, roomWanted ? releaseWaitersForLock() : nil)
    }

    /// Lets every waiting producer go, full lane or not: a lock pauses the lane, and a producer that
    /// began waiting before it was taken may be the one whose work releases it (a handler that hands
    /// its lock to the producer's queue). Producers do not wait again while a lock is held
    /// (`makesProducersWait`).
    private mutating func releaseWaitersForLock() -> Room {
        roomGeneration &+= 1
        defer { tasksWaitingForRoom = [] }
        return Room(wakesThreads: threadsWaitingForRoom > 0, tasks: tasksWaitingForRoom)
    }

    /// How many items wait, when as many as the backlog mark or more do and the crossing is to be
    /// reported (once per crossing); nil otherwise. Called after each main-lane append. The items of
    /// the running batch are counted from `itemsRun` (the drain's progress), read only when the
    /// batch could take the count to the mark, so that an append far below it reads nothing the
    /// bus writes. After a crossing, an append that finds the backlog down to half the mark arms
    /// the next one (the bus does too, between batches): a producer that waited for the bus to
    /// catch up (`flush()`) may start its next burst before the bus looks again.
    @inline(__always)
    mutating func reachedBacklogMark(itemsRun: () -> UInt64) -> Int? {
        let queued = pendingMainCount + exclusive.count
        let upperBound = queued + Int(truncatingIfNeeded: batchEnd &- batchStart)
        guard backlogArmed else {
            if queued <= backlogRearmDepth { rearmIfDown(queued: queued, upperBound: upperBound, itemsRun: itemsRun()) }
            return nil
        }
        guard upperBound >= backlogMark else { return nil }
        return backlogCrossing(queued: queued, itemsRun: itemsRun())
    }

    /// The depth at or below which the backlog counts as having come down: half the mark.
    var backlogRearmDepth: Int { backlogMark / 2 }

    /// The items of the running batch not run yet. The drain's count may lag behind (it is read
    /// without ordering): the batch then looks longer than it is, by the items run in the last
    /// moments.
    private func runningBatchRemainder(itemsRun: UInt64) -> Int {
        itemsRun < batchEnd ? Int(truncatingIfNeeded: batchEnd - max(itemsRun, batchStart)) : 0
    }

    @inline(never)
    private mutating func backlogCrossing(queued: Int, itemsRun: UInt64) -> Int? {
        let waiting = queued + runningBatchRemainder(itemsRun: itemsRun)
        guard waiting >= backlogMark else { return nil }
        backlogArmed = false
        return waiting
    }

    @inline(never)
    private mutating func rearmIfDown(queued: Int, upperBound: Int, itemsRun: UInt64) {
        if upperBound <= backlogRearmDepth || queued + runningBatchRemainder(itemsRun: itemsRun) <= backlogRearmDepth {
            backlogArmed = true
        }
    }

    /// The bus took `count` items to run (none when it stops draining, or puts a batch's rest back),
    /// having run `itemsRun` so far. The next crossing is reported again if the bus finds the backlog
    /// down to half the mark, the batch included.
    mutating func startBatch(of count: Int, itemsRun: UInt64) {
        batchStart = itemsRun
        batchEnd = itemsRun &+ UInt64(count)
        if !backlogArmed, count + pendingMainCount + exclusive.count <= backlogRearmDepth { backlogArmed = true }
    }

    /// Marks the queue as draining if there is runnable work and no drain is running.
    /// Returns whether the caller must schedule a drain.
    mutating func claimDrain() -> Bool {
        guard !draining, hasRunnableWork else { return false }
        draining = true
        return true
    }

    /// Swaps the next batch into `batch` (which must be empty), exclusive lane first, then an
    /// interrupted main-lane batch, then the main lane's oldest chunk. Returns the lane, the purge
    /// epoch and the index to start at; nil, and stops draining, when nothing can run.
    /// `itemsRun` is how many items the drain has run so far.
    mutating func takeBatch(into batch: inout [FluxItem], itemsRun: UInt64) -> (lane: Lane, epoch: UInt64, start: Int)?
    {
        if !exclusive.isEmpty {
            swap(&batch, &exclusive)
            startBatch(of: batch.count, itemsRun: itemsRun)
            return (.exclusive, purgeEpoch, 0)
        }
        if locks.isEmpty && hasSuspended {
            let start = suspendedIndex
            swap(&batch, &suspended)
            suspendedIndex = 0
            startBatch(of: batch.count - start, itemsRun: itemsRun)
            return (.main, purgeEpoch, start)
        }
        if locks.isEmpty && !main.isEmpty {
            // Its oldest chunk: the rest waits in the lane, counted there.
            startBatch(of: main.take(into: &batch), itemsRun: itemsRun)
            return (.main, purgeEpoch, 0)
        }
        startBatch(of: 0, itemsRun: itemsRun)
        draining = false
        return nil
    }
}

/// A task suspended in `Flux.waitForRoom()`, numbered so that its cancellation can find it.
struct FluxRoomWaiter {
    let number: UInt64
    let continuation: CheckedContinuation<Void, Never>
}
