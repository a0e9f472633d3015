import Dispatch
import FlaskLocking
import Synchronization

// How the bus runs its work: enqueueing, draining in batches, running an item, mixing through
// middleware.
extension Flux {
    @inline(__always)
    func enqueue(_ item: consuming FluxItem) {
        // Moved into the queue, not copied: a copy retained the mixer's name and payload once
        // more, and released them after (scenario S1).
        var pending = Optional(consume item)
        let (start, backlog, full) = queue.withLock { q in
            q.main.append(pending.take()!)
            return (q.claimDrain(), q.reachedBacklogMark { itemsRun.load(ordering: .relaxed) }, q.isFull)
        }
        if start { scheduleDrain() }
        if let backlog { reportBacklog(waiting: backlog) }
        if full { waitForRoomIfAllowed() }
    }

    /// Reports that `waiting` items reached the backlog mark (on the thread that enqueued).
    @inline(never)
    func reportBacklog(waiting: Int) {
        let mark = queue.withLock { $0.backlogMark }
        report(
            .backlog,
            "bus \(label): \(waiting) work items are waiting (high-water mark \(mark)); mixers are dispatched faster "
                + "than the bus runs them, and each waiting one holds memory (see docs/performance.md, \"Backlog\")")
    }

    func enqueueExclusive(_ item: FluxItem) {
        let start = queue.withLock { q in
            q.exclusive.append(item)
            return q.claimDrain()
        }
        interrupts.add(1, ordering: .releasing)
        if start { scheduleDrain() }
    }

    func scheduleDrain() {
        if let drainSchedule {
            drainSchedule { self.drain() }
        } else {
            executor.async { self.drain() }
        }
    }

    /// Runs the bus's work, as its code: ``Flux/current`` is this bus inside (see
    /// ``Flux/runningAsCurrent(_:_:)``), set once per drain, not per item.
    func drain() {
        Flux.runningAsCurrent(self) { drainBatches() }
    }

    private func drainBatches() {
        drainer.enter()
        FluxProducerThread.setDraining(true)
        // The drainer is left in `takeBatch`, under the queue's lock, when it finds nothing to
        // run: from the moment the lock is let go, an awaiting task may claim the idle bus and
        // enter it on its own thread (`claimIdleBus`), and a leave after that would make the bus
        // not current for that task's mix, whose `prop` writes and `react()` would be discarded.
        defer { FluxProducerThread.setDraining(false) }
        var batch: [FluxItem] = []
        // How many items this bus has run, kept here and published (without ordering: the backlog
        // count reads it) for each item.
        var ran = itemsRun.load(ordering: .relaxed)
        while let (lane, epoch, start, interruptsSeen) = takeBatch(into: &batch, itemsRun: ran) {
            // What stops this batch: any interrupt for the main lane, purges for the exclusive one.
            let watched: UInt64 = lane == .main ? .max : ~(Flux.purgeStep - 1)
            let seen = interruptsSeen & watched
            // Each item is moved out of the batch, run as this loop's own, and moved back (the
            // batch destroys it when emptied): lent from the batch, it was copied for each call it
            // was lent to (retaining and releasing its name, payload and reference).
            let stoppedAt = batch.forEachMovedOut(from: start) { item, index in
                run(item)
                ran &+= 1
                itemsRun.store(ran, ordering: .relaxed)
                if (index + 1) % FluxOwnerHolds.itemsPerEpoch == 0 { ownerHolds.releaseAll() }
                return interrupts.load(ordering: .acquiring) & watched == seen
            }.flatMap { $0 < batch.count ? $0 : nil }
            ownerHolds.releaseAll()
            if let stoppedAt { interrupt(&batch, at: stoppedAt, lane: lane, epoch: epoch) }
            batch.removeAll(keepingCapacity: true)
        }
        #if DEBUG
            // The bus may be claimed from here on: a test holds the drain here to claim it.
            if let stopped = Flux.drainStoppedForTests.withLock({ $0 }) { stopped(self) }
        #endif
    }

    #if DEBUG
        /// Called (debug builds) by each bus's drain once it has let go of the bus, on the drain's
        /// thread: a test's way to hold a drain at that point.
        static let drainStoppedForTests = LockedValue<(@Sendable (Flux) -> Void)?>(nil)
    #endif

    /// Claims the bus for one work item run on the calling thread (``runClaimed(_:)``), when the
    /// bus is idle: nothing queued, running or suspended, no lock, no exclusive work. The item is
    /// then next in FIFO order wherever it runs.
    func claimIdleBus() -> Bool {
        queue.withLock { q in
            guard !q.draining, q.main.isEmpty, !q.hasSuspended, q.exclusive.isEmpty, q.locks.isEmpty else {
                return false
            }
            q.draining = true
            return true
        }
    }

    /// Runs `work` as the bus's one work item on the calling thread, which ``claimIdleBus()``
    /// claimed: the bus is current meanwhile (its confined state is reachable, `isCurrent` is
    /// true), and it lets go of what it held after, as at the end of a batch. Work enqueued
    /// meanwhile is left to a drain on the bus's executor.
    func runClaimed(_ work: () -> Void) {
        drainer.enter()
        FluxProducerThread.setDraining(true)
        confined.state.value.itemSerial &+= 1
        Flux.runningAsCurrent(self, work)
        itemsRun.store(itemsRun.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        ownerHolds.releaseAll()
        FluxProducerThread.setDraining(false)
        drainer.leave()
        let start = queue.withLock { q in
            q.draining = false
            return q.claimDrain()
        }
        if start { scheduleDrain() }
    }

    /// Takes the next batch to run (see `FluxQueue.takeBatch`), and wakes the producers waiting
    /// for room once it has made some.
    @inline(__always)
    private func takeBatch(
        into batch: inout [FluxItem], itemsRun: UInt64
    ) -> (FluxQueue.Lane, UInt64, Int, interruptsSeen: UInt64)? {
        var room: FluxQueue.Room?
        let taken = queue.withLock { q -> (FluxQueue.Lane, UInt64, Int, interruptsSeen: UInt64)? in
            let taken = q.takeBatch(into: &batch, itemsRun: itemsRun)
            // Waiting producers go on as soon as the lane is no longer full, before the batch
            // runs: a handler may wait for one of them.
            if q.roomWanted { room = q.makeRoom() }
            guard let (lane, epoch, start) = taken else {
                // Nothing to run: the drain stops, and leaves the bus before the lock lets anyone
                // claim it (see `drain()`).
                drainer.leave()
                return nil
            }
            // The interrupts as of this batch, read under the lock: a purge bumps them after its
            // own turn with the lock, so one that took the queue before this batch is in the
            // count, and one that comes after is seen between two items (read after the lock, a
            // purge in between went unseen, and a later lock dropped the batch's rest as purged).
            return (lane, epoch, start, interrupts.load(ordering: .acquiring))
        }
        if let room { wake(room) }
        return taken
    }

    /// Puts the rest of an interrupted batch back, so the drain looks at the lanes again: a main
    /// batch is suspended whole (O(1)), the short exclusive lane gets its rest back in front. A
    /// purged batch's rest is dropped.
    func interrupt(_ batch: inout [FluxItem], at index: Int, lane: FluxQueue.Lane, epoch: UInt64) {
        let ran = itemsRun.load(ordering: .relaxed)
        let purged = queue.withLock { q in
            // The rest of the batch is counted where it goes (suspended, or back in the lane), once
            // it is there.
            defer { q.startBatch(of: 0, itemsRun: ran) }
            guard q.purgeEpoch == epoch else {
                // Purged: the exclusive lane's upkeep goes back in front of it, the rest is dropped.
                if lane == .exclusive { q.exclusive.insert(contentsOf: batch[index...].filter(\.survivesPurge), at: 0) }
                return true
            }
            switch lane {
            case .main: q.suspend(&batch, at: index)
            case .exclusive: q.exclusive.insert(contentsOf: batch[index...], at: 0)
            }
            return false
        }
        if purged { drop(batch[index...].filter { lane == .main || !$0.survivesPurge }) }
    }

    func run(_ item: borrowing FluxItem) {
        confined.state.value.itemSerial &+= 1
        // A task that mixes says what it is to the commits it makes (`runningMix`); a dispatch's
        // commits are told by its event, so a mixer pays nothing for it.
        if item.isMixTask { return runMixTask(item) }
        runItem(item)
    }

    /// Runs a task that mixes, with its label and origin told to its commits meanwhile, and tells
    /// it when the item is over (the middleware have seen it: an awaiting caller resumes then).
    @inline(never)
    private func runMixTask(_ item: borrowing FluxItem) {
        confined.state.value.lastMix = FluxRunningMix(label: item.mixer, origin: item.event.origin)
        confined.state.value.isRunningMix = true
        // The work, cast once for both calls (a checked cast walks the task's class hierarchy:
        // scenario S6). Without middleware, a mix task just runs (`runItem` would cast again).
        let task = item.task
        if let pipeline = confined.state.value.pipeline.map(Unretained.init) {
            mix(item, through: pipeline)
        } else {
            task.run()
        }
        confined.state.value.isRunningMix = false
        task.finished()
    }

    /// The label and origin of the task that mixes running now, nil outside one (on the bus): what
    /// the commits it makes say of their mix.
    package var runningMix: FluxRunningMix? {
        confined.state.value.isRunningMix ? confined.state.value.lastMix : nil
    }

    /// Whether a task that mixes is running now (on the bus).
    package var isRunningMix: Bool { confined.state.value.isRunningMix }

    private func runItem(_ item: borrowing FluxItem) {
        // Without middleware there is nothing to intercept or report: the dispatch path stays bare.
        guard let pipeline = confined.state.value.pipeline.map(Unretained.init) else {
            if item.isTask {
                // A flush waiter, or bookkeeping that looks at owners (a task that is no mix), sees
                // none held for earlier deliveries; a mix (a task's step) keeps them.
                if item.mixKind == nil { ownerHolds.releaseAll() }
                item.runTask()
                // Work queued with `perform(_:)` is told it is over too (`FluxWork.finished()`;
                // a mix task is told by `runMixTask`). Here, not in `run`: a mixer pays nothing.
                if item.isPlainTask { item.finishTask() }
                return
            }
            registry.deliver(item.event)
            item.lock?.mixRan()
            return
        }
        guard item.mixKind != nil else {
            ownerHolds.releaseAll()
            item.runTask()
            if item.isPlainTask { item.finishTask() }
            return
        }
        mix(item, through: pipeline)
    }

    /// Runs a mix through `pipeline`, the bus's middleware now, borrowed (not retained: the pipeline is
    /// replaced only between items, which a debug build checks), then settles what the mix
    /// learned about the middleware. Returns the number of observers called.
    @discardableResult
    func mix(_ item: borrowing FluxItem, through pipeline: Unretained<FluxMiddlewarePipeline>) -> Int {
        let called = pipeline.withObject { pipeline in
            let called = mix(item, through: pipeline)
            assert(confined.state.value.pipeline === pipeline, "the bus's middleware changed while a mix ran")
            return called
        }
        if !confined.state.value.newlyIgnoring.isEmpty {
            confined.state.value.ignoringReports.formUnion(confined.state.value.newlyIgnoring)
            confined.state.value.newlyIgnoring.removeAll()
        }
        return called
    }

    /// Runs a mix through the middleware (on the bus): they may replace or stop a mixer, and see
    /// what it did. Returns the number of observers called.
    ///
    /// The common case stays short: every middleware passes the item's own event (lent, not
    /// copied) and none reads reports. A replacement or a stop continues in
    /// ``mix(_:through:decided:by:)``.
    private func mix(_ item: borrowing FluxItem, through pipeline: FluxMiddlewarePipeline) -> Int {
        if !item.isTask {
            // By index: an iterator would retain the array.
            for index in pipeline.interceptors.indices {
                let decision = Unretained(pipeline.interceptors[index]).withObject {
                    $0.middleware.willMix(item.event)
                }
                guard case .pass = decision else { return mix(item, through: pipeline, decided: decision, by: index) }
            }
        }
        guard pipeline.hasReaders else { return mixUnreported(item, event: item.event, stopped: false) }
        return mixReported(item, event: item.event, dispatched: nil, stop: nil, readers: pipeline.readers)
    }

    /// The rest of a mix whose middleware number `index` replaced or stopped it: the middleware
    /// after it see the replacement, none after a stop.
    @inline(never)
    private func mix(
        _ item: borrowing FluxItem, through pipeline: FluxMiddlewarePipeline, decided first: FluxMiddlewareDecision,
        by firstIndex: Int
    ) -> Int {
        var event = item.event
        var dispatched: FluxMixerName?
        var stop: FluxMixReport.Stop?
        var decision = first
        var index = firstIndex
        while true {
            if case .replace(let mixer, let payload) = decision {
                if dispatched == nil { dispatched = event.mixer }
                event = event.replacing(mixer: mixer, payload: payload)
            } else if case .stop(let reason) = decision {
                stop = FluxMixReport.Stop(
                    middleware: pipeline.interceptors[index].middleware.middlewareName, reason: reason)
                // An awaited dispatch tells its caller.
                confined.state.value.activeReceipt?.stop = stop
                break
            }
            index += 1
            guard index < pipeline.interceptors.count else { break }
            decision = pipeline.interceptors[index].middleware.willMix(event)
        }
        guard pipeline.hasReaders else { return mixUnreported(item, event: event, stopped: stop != nil) }
        return mixReported(item, event: event, dispatched: dispatched, stop: stop, readers: pipeline.readers)
    }

    /// The rest of a mix when no middleware reads reports: it runs as it would without middleware
    /// (in an awaited dispatch's receipt if there is one), unless a middleware stopped it.
    private func mixUnreported(_ item: borrowing FluxItem, event: FluxEvent, stopped: Bool) -> Int {
        confined.state.value.mixSerial += 1
        var called = 0
        if !stopped {
            if item.isTask {
                item.runTask()
            } else {
                called = registry.deliver(event)
            }
        }
        item.lock?.mixRan()
        return called
    }

    /// The rest of ``mix(_:through:)`` when a middleware reads reports: the mix runs in a receipt,
    /// and its report goes to the readers.
    private func mixReported(
        _ item: borrowing FluxItem, event: FluxEvent, dispatched: FluxMixerName?, stop: FluxMixReport.Stop?,
        readers: [any FluxMiddleware]
    ) -> Int {
        let start = ContinuousClock.now
        // Outside an awaited mix, the bus's own receipt collects the records (emptied after each
        // mix): a receipt per mix would cost an allocation and a mutex.
        let receipt = confined.state.value.activeReceipt ?? confined.mixReceipt
        let locksHeld = openLockSerials()
        var called = 0
        if stop == nil {
            withReceipt(receipt) {
                if item.isTask {
                    item.runTask()
                } else {
                    called = registry.deliver(event)
                }
            }
        }
        item.lock?.mixRan()
        confined.state.value.mixSerial += 1
        do {
            // The report (and its copy of the records) goes before the receipt is emptied, so that
            // the receipt keeps its storage for the next mix.
            let (records, lent) = receipt.recordsAndLent
            let report = FluxMixReport(
                serial: confined.state.value.mixSerial, kind: item.mixKind ?? .task, mixer: event.mixer,
                payload: event.payload, value: event.value, origin: event.origin,
                dispatchedMixer: dispatched, stop: stop, observersCalled: called, records: records, lent: lent,
                locksHeld: locksHeld, startedAt: start, duration: ContinuousClock.now - start, confined: confined)
            for observer in readers { observer.didMix(report) }
        }
        if receipt === confined.mixReceipt { receipt.reset() }
        return called
    }
}
