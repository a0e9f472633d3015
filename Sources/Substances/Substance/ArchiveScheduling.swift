import FlaskLocking
import Synchronization

/// Whether a substance's commit is between the publication of its state (`state` shows it, from
/// any thread) and the scheduling of its archive write, and who waits for that to end.
///
/// A commit publishes first, since what comes between may move the previous state about (the
/// reduction refills a changes object with it); so one who saw the new state and asks for
/// ``Substance/stored()`` meanwhile would wait for what was scheduled, without it (found from
/// outside: an acknowledged state lost to a crash, 12 of 360 `kill -9` rounds with four callers at
/// once). ``Substance/stored()`` waits for the scheduling first: the end of this one commit's
/// window, not the bus's queue, which a lock its caller holds may keep from draining.
final class ArchiveScheduling: Sendable {
    private let unscheduled = Atomic<Bool>(false)
    /// How many callers wait or are about to: read by the commit that ends the window, so that
    /// one with nobody waiting takes no lock. Sequentially consistent with `unscheduled`: a waiter
    /// that saw the window open is counted when the commit looks, or sees it closed.
    private let waiting = Atomic<Int>(0)
    private let waiters = LockedValue<[CheckedContinuation<Void, Never>]>([])

    /// On the bus, before a commit's state is published.
    func willPublish() {
        unscheduled.store(true, ordering: .sequentiallyConsistent)
    }

    /// On the bus, once the commit's archive write is scheduled: lets the waiters go.
    func didSchedule() {
        unscheduled.store(false, ordering: .sequentiallyConsistent)
        guard waiting.load(ordering: .sequentiallyConsistent) > 0 else { return }
        let resumed = waiters.withLock { waiters in
            defer { waiters = [] }
            return waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Returns once no commit is between publishing its state and scheduling its write (at once,
    /// nearly always).
    func waitForScheduling() async {
        guard unscheduled.load(ordering: .sequentiallyConsistent) else { return }
        waiting.add(1, ordering: .sequentiallyConsistent)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = waiters.withLock { waiters in
                guard unscheduled.load(ordering: .sequentiallyConsistent) else { return false }
                waiters.append(continuation)
                return true
            }
            if !waits { continuation.resume() }
        }
        waiting.subtract(1, ordering: .sequentiallyConsistent)
    }
}
