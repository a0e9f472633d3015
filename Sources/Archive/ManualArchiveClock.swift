import Foundation

/// A clock that moves only when told to: for tests of debounced and bounded writes that take no
/// real time.
///
/// ``advance(by:)`` moves ``now`` and runs, on the calling thread and in deadline order, every
/// wake-up that has come due, including those the woken actions arm on the way.
///
/// `@unchecked Sendable`: its state is only touched with the lock held; actions run outside it.
public final class ManualArchiveClock: ArchiveClock, @unchecked Sendable {
    private struct Sleeper {
        let deadline: Duration
        let order: Int
        let action: @Sendable () -> Void
    }

    private let lock = NSLock()
    private var current = Duration.zero
    private var sleepers: [Sleeper] = []
    private var armed = 0

    /// A clock at zero, with no wake-up armed.
    public init() {}

    public var now: Duration {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// The number of wake-ups armed and not yet run.
    public var pendingWakeUps: Int {
        lock.lock()
        defer { lock.unlock() }
        return sleepers.count
    }

    public func wake(at deadline: Duration, _ action: @escaping @Sendable () -> Void) {
        lock.lock()
        armed += 1
        sleepers.append(Sleeper(deadline: deadline, order: armed, action: action))
        lock.unlock()
    }

    /// Moves time forward by `duration` and runs the wake-ups that come due.
    public func advance(by duration: Duration) {
        lock.lock()
        let target = current + duration
        lock.unlock()
        advance(to: target)
    }

    /// Moves time forward to `instant` (never back) and runs the wake-ups that come due.
    public func advance(to instant: Duration) {
        while true {
            lock.lock()
            let due = sleepers.indices.filter { sleepers[$0].deadline <= instant }
            guard
                let next = due.min(by: {
                    (sleepers[$0].deadline, sleepers[$0].order) < (sleepers[$1].deadline, sleepers[$1].order)
                })
            else {
                current = max(current, instant)
                lock.unlock()
                return
            }
            let sleeper = sleepers.remove(at: next)
            current = max(current, sleeper.deadline)
            lock.unlock()
            sleeper.action()
        }
    }

    /// Runs the wake-ups already due without moving time.
    public func runDueWakeUps() {
        advance(to: now)
    }
}
