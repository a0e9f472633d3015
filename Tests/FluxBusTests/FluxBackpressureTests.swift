import Dispatch
import FlaskTestSupport
import Foundation
import Synchronization
import Testing

@testable import FluxBus

/// Waits until `condition` holds, checking it again and again (not a timed sleep: a bound only, so
/// that a broken promise fails the test instead of hanging it).
private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + 30_000_000_000
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return false }
        usleep(0)
    }
    return true
}

@Suite("Flux: backpressure, producers wait for the bus")
struct FluxBackpressureTests {
    @Test("the default limit is 40,000 items, under half the backlog mark; nil lifts it")
    func defaultLimit() {
        let bus = Flux()
        #expect(bus.backlogLimit == 40_000)
        #expect(2 * Flux.defaultBacklogLimit < Flux.defaultBacklogMark)
        bus.backlogLimit = nil
        #expect(bus.backlogLimit == nil)
    }

    @Test("a producer thread waits at the limit until the bus takes the lane, then goes on; nothing is lost")
    func producerThreadWaits() async {
        let bus = Flux(label: "backpressure.thread")
        bus.backlogLimit = 10
        let ran = Recorder<Int>()
        let owner = Owner()
        bus.observe("tick", owner: owner) { _, event in ran.append(event.payload?["n"] as? Int ?? -1) }
        let lock = BusPause(bus)
        let dispatched = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for n in 0..<25 {
                bus.dispatch("tick", payload: ["n": n])
                dispatched.add(1, ordering: .relaxed)
            }
            done.signal()
        }
        // The bus is busy: the producer queues ten, then waits after the tenth.
        #expect(eventually { bus.producersWaitingForRoom == 1 })
        let returned = dispatched.load(ordering: .relaxed)
        #expect(returned == 9, "the tenth dispatch is queued, and waits to return")
        lock.release()
        done.wait()
        await bus.flush()
        #expect(ran.all == Array(0..<25), "every dispatch ran once, in order")
        #expect(bus.producersWaitingForRoom == 0)
        withExtendedLifetime(owner) {}
    }

    @Test(
        "producers that wait never set off the backlog diagnostic, even while the bus runs a chunk they refilled the lane behind"
    )
    func waitingProducersStayUnderTheMark() async {
        let bus = Flux(label: "backpressure.mark")
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let limit = Flux.defaultBacklogLimit
        let owner = Owner()
        let firstRuns = DispatchSemaphore(value: 0)
        let goOn = DispatchSemaphore(value: 0)
        let calls = Atomic<Int>(0)
        bus.observe("tick", owner: owner) { _, _ in
            if calls.add(1, ordering: .relaxed).newValue == 1 {
                firstRuns.signal()
                goOn.wait()
            }
        }
        let lock = BusPause(bus)
        let dispatched = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let total = 3 * limit
        Thread.detachNewThread {
            for _ in 0..<total {
                bus.dispatch("tick")
                dispatched.add(1, ordering: .relaxed)
            }
            done.signal()
        }
        // Behind the lock the lane fills to the limit; released, the bus takes its oldest chunk,
        // lets the producer go before running it (a handler may wait for a producer), and stops
        // in the chunk's first item, while the producer fills the lane to the limit again: the
        // limit and a chunk wait at once.
        #expect(eventually { bus.producersWaitingForRoom == 1 })
        lock.release()
        firstRuns.wait()
        #expect(
            eventually {
                bus.producersWaitingForRoom == 1
                    && dispatched.load(ordering: .relaxed) == limit + FluxLane.chunkCapacity - 1
            })
        #expect(bus.waitingItemCount == limit)
        goOn.signal()
        done.wait()
        await bus.flush()
        #expect(calls.load(ordering: .relaxed) == total)
        #expect(!reports.all.contains { $0.code == .backlog }, "\(reports.all.map(\.message))")
        withExtendedLifetime(owner) {}
    }

    @Test("the main queue never waits: it dispatches past the limit, and the backlog is reported")
    func mainThreadNeverWaits() async {
        let bus = Flux(label: "backpressure.main")
        bus.backlogLimit = 10
        bus.backlogHighWaterMark = 20
        let codes = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { codes.append($0.code) }
        let lock = BusPause(bus)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async {
                for _ in 0..<25 { bus.dispatch("tick") }
                done.resume()
            }
        }
        #expect(bus.producersWaitingForRoom == 0)
        #expect(codes.all == [.backlog])
        lock.release()
        await bus.flush()
    }

    @Test("a Swift task never blocks its thread in a dispatch; waitForRoom() suspends it instead")
    func tasksSuspend() async {
        let bus = Flux(label: "backpressure.task")
        bus.backlogLimit = 10
        let lock = BusPause(bus)
        // Not blocked: the task finishes its 25 dispatches while the lane is paused.
        await Task.detached { for _ in 0..<25 { bus.dispatch("tick") } }.value
        let resumed = Atomic<Bool>(false)
        let waiter = Task.detached {
            await bus.waitForRoom()
            resumed.store(true, ordering: .relaxed)
        }
        // Polled without blocking the test's thread: the waiter needs one of the pool's to start.
        let deadline = ContinuousClock.now + .seconds(60)
        while bus.producersWaitingForRoom == 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(bus.producersWaitingForRoom == 1)
        let resumedEarly = resumed.load(ordering: .relaxed)
        #expect(!resumedEarly)
        lock.release()
        await waiter.value
        let resumedAfter = resumed.load(ordering: .relaxed)
        #expect(resumedAfter)
        await bus.flush()
    }

    @Test("a handler that dispatches never waits, even on a full lane (it would wait for its own bus)")
    func busThreadNeverWaits() async {
        let bus = Flux(label: "backpressure.bus")
        bus.backlogLimit = 5
        let owner = Owner()
        let echoes = Recorder<Int>()
        bus.observe("burst", owner: owner) { _, _ in
            for n in 0..<20 { bus.dispatch("echo", payload: ["n": n]) }
        }
        bus.observe("echo", owner: owner) { _, event in echoes.append(event.payload?["n"] as? Int ?? -1) }
        bus.dispatch("burst")
        await bus.flush()  // the burst ran; its echoes were queued behind this flush
        await bus.flush()
        #expect(echoes.all == Array(0..<20))
        withExtendedLifetime(owner) {}
    }

    @Test("a purge, or a higher limit, lets waiting producers go on")
    func purgeAndLimitWake() async {
        let bus = Flux(label: "backpressure.purge")
        bus.backlogLimit = 4
        let lock = BusPause(bus)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<4 { bus.dispatch("tick") }
            done.signal()
        }
        #expect(eventually { bus.producersWaitingForRoom == 1 })
        bus.purge()
        done.wait()
        let raised = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<4 { bus.dispatch("tick") }
            raised.signal()
        }
        #expect(eventually { bus.producersWaitingForRoom == 1 })
        bus.backlogLimit = 100
        raised.wait()
        lock.release()
        await bus.flush()
    }

    @Test("a thread that holds a lock and floods the bus never waits for room: the backlog is reported instead")
    func lockHolderNeverWaits() {
        let bus = Flux(label: "backpressure.lock")
        bus.backlogLimit = 10
        bus.backlogHighWaterMark = 50
        let codes = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { codes.append($0.code) }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let lock = bus.lock()
            for _ in 0..<100 { bus.dispatch("tick") }
            lock.release()
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "the lock holder finished its dispatches")
        #expect(codes.all == [.backlog])
    }

    @Test("a task in waitForRoom() returns when it is cancelled")
    func waitForRoomCancelled() async {
        let bus = Flux(label: "backpressure.cancel")
        bus.backlogLimit = 2
        let pause = BusPause(bus)
        for _ in 0..<3 { bus.dispatch("tick") }
        let waiter = Task.detached { await bus.waitForRoom() }
        // Polled without blocking the test's thread: the waiter needs one of the pool's to start.
        let deadline = ContinuousClock.now + .seconds(60)
        while bus.producersWaitingForRoom == 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(bus.producersWaitingForRoom == 1)
        waiter.cancel()
        await waiter.value
        #expect(bus.producersWaitingForRoom == 0)
        pause.release()
        await bus.flush()
    }
}

@Suite("Flux: backpressure never waits on a lock")
struct FluxBackpressureLockTests {
    @Test("a producer thread already waiting for room is let go when a lock pauses the lane")
    func waitingThreadLetGoByLock() async {
        let bus = Flux(label: "backpressure.waiting-then-lock")
        bus.backlogLimit = 4
        let pause = BusPause(bus)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<10 { bus.dispatch("tick") }
            done.signal()
        }
        #expect(eventually { bus.producersWaitingForRoom == 1 })
        let lock = bus.lock()
        // The producer goes on past the limit while the lock holds the lane, as one that found the
        // lock taken would.
        #expect(await done.waitOffThePool(seconds: 60), "the waiting producer was let go by the lock")
        #expect(bus.producersWaitingForRoom == 0)
        lock.release()
        pause.release()
        await bus.flush()
    }

    @Test("a task in waitForRoom() returns when a lock pauses the lane")
    func waitingTaskLetGoByLock() async {
        let bus = Flux(label: "backpressure.task-then-lock")
        bus.backlogLimit = 2
        let pause = BusPause(bus)
        for _ in 0..<3 { bus.dispatch("tick") }
        let waiter = Task.detached { await bus.waitForRoom() }
        let deadline = ContinuousClock.now + .seconds(60)
        while bus.producersWaitingForRoom == 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(bus.producersWaitingForRoom == 1)
        let lock = bus.lock(withMixer: "exclusive", autorelease: false)
        await waiter.value
        #expect(bus.producersWaitingForRoom == 0)
        lock.release()
        pause.release()
        await bus.flush()
    }

    @Test(
        "an importer on a serial queue, limit 4, whose handler hands its lock to that queue: every item runs",
        .hangGuard)
    func importerReleasesFromItsQueue() async {
        let bus = Flux(label: "backpressure.importer")
        bus.backlogLimit = 4
        let importer = DispatchQueue(label: "importer")
        let seen = Atomic<Int>(0)
        let owner = Owner()
        bus.observe("imported", owner: owner) { _, _ in
            let count = seen.add(1, ordering: .relaxed).newValue
            guard count == 10 else { return }
            // The importer is waiting for room by now (the lane is full behind this item): the
            // lock's release is queued behind its loop, and only the lock can let it go on.
            _ = eventually { bus.producersWaitingForRoom == 1 }
            let lock = bus.lock()
            importer.async { lock.release() }
        }
        let finished = DispatchSemaphore(value: 0)
        importer.async {
            for n in 0..<100 { bus.dispatch("imported", payload: ["n": n]) }
            finished.signal()
        }
        let importerFinished = await finished.waitOffThePool(seconds: 60)
        #expect(importerFinished, "the importer finished its dispatches")
        // A regression fails here rather than hanging the suite: lifting the limit lets it go.
        if !importerFinished { bus.backlogLimit = nil }
        await bus.flush()
        #expect(seen.load(ordering: .relaxed) == 100)
    }
}

extension DispatchSemaphore {
    /// Waits for the semaphore off the cooperative pool, from an async test: a wait in the test
    /// itself held one of the pool's threads (two on a 2-core machine) for as long as it lasted,
    /// and under the thread sanitizer on a loaded machine starved other suites' tasks past their
    /// time limits (two of them in one CI run). True if it was signalled in time.
    func waitOffThePool(seconds: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.wait(timeout: .now() + .seconds(seconds)) == .success)
            }
        }
    }
}
