import Archive
import Foundation
import Substances

/// A clock that moves only when told to: for tests of debounced and bounded writes that take no
/// real time.
///
/// ``advance(by:)`` moves ``now`` and runs, on the calling thread and in deadline order, every
/// wake-up that has come due, including those the woken actions arm on the way.
///
public final class ManualArchiveClock: ArchiveClock, Sendable {
    private struct Sleeper {
        let deadline: Duration
        let order: Int
        let action: @Sendable () -> Void
    }

    private struct State {
        var current = Duration.zero
        var sleepers: [Sleeper] = []
        var armed = 0
    }

    /// The time and the wake-ups; actions run outside the lock.
    private let state = LockedValue(State())

    /// A clock at zero, with no wake-up armed.
    public init() {}

    /// The time, as far as the clock was moved.
    public var now: Duration { state.withLock { $0.current } }

    /// The number of wake-ups armed and not yet run.
    public var pendingWakeUps: Int { state.withLock { $0.sleepers.count } }

    /// Runs `action` when the clock is moved to `deadline` or past it.
    public func wake(at deadline: Duration, _ action: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.armed += 1
            state.sleepers.append(Sleeper(deadline: deadline, order: state.armed, action: action))
        }
    }

    /// Moves time forward by `duration` and runs the wake-ups that come due.
    public func advance(by duration: Duration) {
        advance(to: state.withLock { $0.current } + duration)
    }

    /// Moves time forward to `instant` (never back) and runs the wake-ups that come due.
    public func advance(to instant: Duration) {
        while true {
            let next: Sleeper? = state.withLock { state in
                let due = state.sleepers.indices.filter { state.sleepers[$0].deadline <= instant }
                guard
                    let next = due.min(by: {
                        (state.sleepers[$0].deadline, state.sleepers[$0].order)
                            < (state.sleepers[$1].deadline, state.sleepers[$1].order)
                    })
                else {
                    state.current = max(state.current, instant)
                    return nil
                }
                let sleeper = state.sleepers.remove(at: next)
                state.current = max(state.current, sleeper.deadline)
                return sleeper
            }
            guard let next else { return }
            next.action()
        }
    }

    /// Runs the wake-ups already due without moving time.
    public func runDueWakeUps() {
        advance(to: now)
    }
}
