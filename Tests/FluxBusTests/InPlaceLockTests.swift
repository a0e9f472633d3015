import Dispatch
import FlaskLocking
import Testing

/// Counts under an `InPlaceLock`, the way `FluxLock` and `Substance` keep their state.
private final class LockedCounter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is touched only inside `lock.withLock`.
    let lock = InPlaceLock()
    var count = 0

    func bump(holdingFor spins: Int = 0) {
        lock.withLock {
            // A read and a write far apart: without the lock, threads would overwrite each
            // other's updates.
            let seen = count
            var work = 0
            for step in 0..<spins { work &+= step }
            count = seen + 1 + (work & 0)
        }
    }
}

@Suite("InPlaceLock: the package's one lock")
struct InPlaceLockTests {
    @Test("threads taking it at once never lose an update")
    func exclusive() {
        let counter = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<5_000 { counter.bump() }
        }
        #expect(counter.count == 40_000)
    }

    @Test("threads that find it held park until it is free, and none is left behind")
    func contended() {
        // Holding the lock for a while makes the others find it taken and park (the slow path).
        let counter = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            for _ in 0..<300 { counter.bump(holdingFor: 2_000) }
        }
        #expect(counter.count == 1_800)
    }

    @Test("locks that share a parking stripe wake each other's waiters without losing one")
    func sharedStripes() {
        // Forty locks over sixteen stripes: waiters of different locks park on the same stripe.
        let counters = (0..<40).map { _ in LockedCounter() }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<400 { counters[(thread + round) % counters.count].bump(holdingFor: 200) }
        }
        #expect(counters.reduce(0) { $0 + $1.count } == 3_200)
    }

    @Test("a value behind a lock")
    func lockedValue() {
        let value = LockedValue<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<1_000 { value.withLock { $0.append(thread * 1_000 + index) } }
        }
        #expect(value.withLock { Set($0) } == Set(0..<4_000))
    }
}
