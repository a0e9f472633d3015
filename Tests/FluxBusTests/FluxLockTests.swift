import Dispatch
import FlaskLocking
import FlaskTestSupport
import Testing

@testable import FluxBus

@Suite("Flux: locks, exclusive dispatch, purge, diagnostics")
struct FluxLockTests {
    @Test("locks released in any order: open locks stay listed oldest first; the lane resumes after the last")
    func locksReleasedInAnyOrder() async {
        let bus = Flux()
        var random = SeededRandom(seed: 7)
        var open: [FluxLock] = (0..<40).map { _ in bus.lock() }
        let ran = Recorder<Int>()
        bus.perform(mix: "behind the locks") { ran.append(1) }
        for round in 0..<200 {
            // Release one at random, and now and then take a new one, so that released slots pile
            // up at the front, in the middle and at the end.
            let lock = open.remove(at: Int.random(in: 0..<open.count, using: &random))
            lock.release()
            if round % 3 == 0 && round < 120 { open.append(bus.lock()) }
            #expect(bus.openLocks.map(\.serial) == open.map(\.serial).sorted())
            if open.isEmpty { break }
        }
        for lock in open { lock.release() }
        await bus.flush()
        #expect(bus.openLocks.isEmpty)
        #expect(ran.all == [1])
        let again = bus.lock()
        #expect(bus.openLocks.map(\.serial) == [again.serial])
        again.release()
    }

    @Test("a lock pauses the main lane; stacked locks resume it only when all are released")
    func stackedLocks() async {
        let bus = Flux()
        let ran = Recorder<String>()
        let first = bus.lock()
        let second = bus.lock()
        bus.perform { ran.append("item") }
        await bus.settleExclusive()
        #expect(ran.all.isEmpty)
        first.release()
        await bus.settleExclusive()
        #expect(ran.all.isEmpty)
        #expect(bus.openLocks.map(\.serial) == [second.serial])
        second.release()
        await bus.flush()
        #expect(ran.all == ["item"])
        #expect(bus.openLocks.isEmpty)
    }

    @Test("release is idempotent, onRelease is called once with the reason, a double release is reported")
    func releaseOnce() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { reports.append($0.code) }
        let reasons = Recorder<FluxLock.Release>()
        let lock = bus.lock()
        lock.onRelease = { reasons.append($0) }
        lock.release()
        lock.release()
        #expect(reasons.all == [.explicit])
        #expect(reports.all == [.lockReleasedTwice])
        #expect(lock.isReleased)
        // Set after the release, onRelease is called at once.
        let late = Recorder<FluxLock.Release>()
        lock.onRelease = { late.append($0) }
        #expect(late.all == [.explicit])
    }

    @Test("locks taken and released from other threads")
    func crossThreadLocks() async {
        let bus = Flux()
        let ran = Recorder<Int>()
        let locks = Recorder<FluxLock>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in locks.append(bus.lock()) }
        bus.perform { ran.append(1) }
        await bus.settleExclusive()
        #expect(ran.count == 0)
        DispatchQueue.concurrentPerform(iterations: 8) { index in locks.all[index].release() }
        await bus.flush()
        #expect(ran.count == 1)
    }

    @Test("a lock taken inside a running item holds back the next item")
    func lockInsideItem() async {
        let bus = Flux()
        let ran = Recorder<String>()
        let taken = Recorder<FluxLock>()
        await withCheckedContinuation { (firstRan: CheckedContinuation<Void, Never>) in
            bus.perform {
                taken.append(bus.lock())
                ran.append("first")
                firstRan.resume()
            }
            bus.perform { ran.append("second") }
        }
        await bus.settleExclusive()
        #expect(ran.all == ["first"])
        taken.all.first?.release()
        await bus.flush()
        #expect(ran.all == ["first", "second"])
    }

    @Test("an exclusive mix runs while the main lane is paused and carries its lock")
    func exclusiveLane() async {
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<String>()
        let handed = Recorder<FluxLock>()
        bus.observe("async", owner: owner) { _, event in
            seen.append("exclusive")
            if let lock = event.lock {
                lock.claim()
                handed.append(lock)
            }
        }
        let userLock = bus.lock()
        bus.perform { seen.append("main") }
        let lock = bus.lock(withMixer: "async", payload: ["id": 7])
        await bus.settleExclusive()
        #expect(seen.all == ["exclusive"])
        #expect(handed.all.first === lock)
        #expect(!lock.isReleased)
        userLock.release()
        await bus.settleExclusive()
        #expect(seen.all == ["exclusive"])
        lock.release()
        await bus.flush()
        #expect(seen.all == ["exclusive", "main"])
    }

    @Test("two exclusive mixes and a queued item complete in order")
    func exclusiveOrder() async {
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<String>()
        bus.observe("a", owner: owner) { _, event in
            seen.append("a")
            event.lock?.claim()
        }
        bus.observe("b", owner: owner) { _, event in
            seen.append("b")
            event.lock?.claim()
        }
        let lockA = bus.lock(withMixer: "a")
        let lockB = bus.lock(withMixer: "b")
        bus.perform { seen.append("queued") }
        await bus.settleExclusive()
        #expect(seen.all == ["a", "b"])
        lockA.release()
        lockB.release()
        await bus.flush()
        #expect(seen.all == ["a", "b", "queued"])
    }

    @Test("autorelease releases a lock nobody took responsibility for")
    func autorelease() async {
        let bus = Flux()
        let lock = bus.lock(withMixer: "nobody-listens")
        let reasons = Recorder<FluxLock.Release>()
        lock.onRelease = { reasons.append($0) }
        bus.perform {}
        await bus.flush()
        #expect(lock.isReleased)
        #expect(reasons.all == [.autorelease])
        let kept = bus.lock(withMixer: "nobody-listens", autorelease: false)
        await bus.settleExclusive()
        #expect(!kept.isReleased)
        bus.removeLocks()
        #expect(kept.isReleased)
    }

    @Test("removeLocks releases every lock and the bus goes on")
    func removeLocks() async {
        let bus = Flux()
        let ran = Recorder<Int>()
        let locks = (0..<3).map { _ in bus.lock() }
        let reasons = Recorder<FluxLock.Release>()
        for lock in locks { lock.onRelease = { reasons.append($0) } }
        bus.perform { ran.append(1) }
        #expect(bus.openLocks.count == 3)
        bus.removeLocks()
        await bus.flush()
        #expect(ran.count == 1)
        #expect(reasons.all == [.removeAll, .removeAll, .removeAll])
        // A user's own release afterwards is harmless and not reported as misuse.
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        locks[0].release()
        #expect(reports.count == 0)
    }

    @Test("purge drops queued items that have not started and releases their exclusive locks")
    func purge() async {
        let bus = Flux()
        let ran = Recorder<Int>()
        // Hold the bus inside a running item so that everything below is queued, not started.
        let gate = BusGate(holding: bus)
        gate.waitUntilHeld()
        for n in 0..<10 { bus.perform { ran.append(n) } }
        let exclusiveLock = bus.lock(withMixer: "m", autorelease: false)
        let reasons = Recorder<FluxLock.Release>()
        exclusiveLock.onRelease = { reasons.append($0) }
        #expect(bus.purge() == 11)
        gate.open()
        bus.perform { ran.append(99) }
        await bus.flush()
        #expect(ran.all == [99])
        #expect(reasons.all == [.purged])
        #expect(bus.openLocks.isEmpty)
    }

    @Test("purge resumes a dispatchAndWait it dropped, with nothing recorded", .hangGuard)
    func purgeResumesAwaiter() async {
        let bus = Flux()
        let lock = bus.lock()
        let waiting = Task { await bus.dispatchAndWait("m") }
        // Once the awaited dispatch is queued behind the lock...
        while bus.lockReport().queuedCount < 1 { await Task.yield() }
        #expect(bus.purge() == 1)
        let receipt = await waiting.value
        #expect(receipt.records.isEmpty && receipt.observersCalled == 0)
        lock.release()
    }

    @Test("purge keeps the bus's upkeep: a middleware added before it is installed")
    func purgeKeepsUpkeep() async {
        let bus = Flux()
        let gate = BusGate(holding: bus)
        gate.waitUntilHeld()
        let seen = CountingMiddleware()
        bus.use(seen)
        bus.dispatch("dropped")
        #expect(bus.purge() == 1)
        gate.open()
        bus.dispatch("kept")
        await bus.flush()
        #expect(seen.names.all == ["kept"])
    }

    @Test("purge from inside a running item drops the rest of the running batch")
    func purgeInsideBatch() async {
        let bus = Flux()
        let ran = Recorder<Int>()
        let lock = bus.lock()
        bus.perform {
            ran.append(0)
            bus.purge()
        }
        for n in 1..<10 { bus.perform { ran.append(n) } }
        lock.release()
        await bus.flush()
        #expect(ran.all == [0])
    }

    @Test("purge from inside a running exclusive item drops the rest of its batch")
    func purgeInsideExclusiveBatch() async {
        let bus = Flux()
        let ran = Recorder<Int>()
        // Queued from a running item, the exclusive items are taken as one batch after it.
        bus.perform {
            bus.performExclusive {
                ran.append(0)
                bus.purge()
            }
            for n in 1..<10 { bus.performExclusive { ran.append(n) } }
        }
        await bus.flush()
        await bus.settleExclusive()
        #expect(ran.all == [0])
    }

    @Test("locks and exclusive work added while an exclusive batch runs leave its order alone")
    func exclusiveBatchKeepsOrder() async {
        let bus = Flux()
        let ran = Recorder<Int>()
        let taken = LockedValue<[FluxLock]>([])
        bus.perform {
            for n in 0..<6 {
                bus.performExclusive {
                    ran.append(n)
                    if n == 1 {
                        taken.withLock { $0.append(bus.lock()) }
                        bus.performExclusive { ran.append(10) }
                    }
                }
            }
        }
        bus.perform { ran.append(20) }
        // Waited for by count, not by an exclusive item of the test's own: one queued before the
        // first item ran, or taken into the batch, returned before the batch was done.
        await ran.waitForCount(7)
        await bus.settleExclusive()
        #expect(ran.all == [0, 1, 2, 3, 4, 5, 10], "the lock holds back only the main lane")
        for lock in taken.withLock({ $0 }) { lock.release() }
        await bus.flush()
        #expect(ran.all == [0, 1, 2, 3, 4, 5, 10, 20])
    }
}

/// Records the names of the mixes it sees.
private final class CountingMiddleware: FluxMiddleware {
    let names = Recorder<String>()
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        names.append(event.mixer.name)
        return .pass
    }
}
