import Dispatch
import FluxBus
import Testing

/// Counts under a `FlagLock`, the way `FluxLock` and `ChainReaction` keep their state.
private final class FlagCounter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is touched only inside `lock.withLock`.
    let lock = FlagLock()
    var count = 0
}

@Suite("FlagLock: the in-place lock of locks and chains")
struct FlagLockTests {
    @Test("threads taking it at once never lose an update")
    func exclusive() {
        let counter = FlagCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<5_000 {
                counter.lock.withLock {
                    // A read and a write far apart: without the lock, threads would overwrite
                    // each other's updates.
                    let read = counter.count
                    var spin = 0
                    for step in 0..<200 { spin &+= step }
                    counter.count = read + 1 + (spin < 0 ? 1 : 0)
                }
            }
        }
        #expect(counter.lock.withLock { counter.count } == 40_000)
    }
}
