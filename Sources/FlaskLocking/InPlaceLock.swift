import Synchronization

/// The package's one lock, the same on every platform: stored in place in the object whose state
/// it guards (no allocation, no initialization to undo), never spinning, and understood by the
/// thread sanitizer.
///
/// It is a word taken with one compare-and-swap and given back with one exchange. A thread that
/// finds it taken parks in a small shared parking lot, in a queue of its own lock's waiters, until
/// a release wakes it: a release wakes one waiter, the first of its lock, never another lock's.
///
/// Why not `Synchronization.Mutex`: on Linux it is built on futexes, which the thread sanitizer
/// does not see (it reports every access guarded by one as a race), so sanitizer runs would not
/// test the code that ships. This lock's word is an atomic with acquire and release orderings,
/// which the sanitizer models, and its waiters sleep on pthread condition variables, which it
/// intercepts. One implementation everywhere means the lock tested under the sanitizer on Linux is
/// the lock that ships on Apple platforms too. (A waiter sleeping here does not lend its priority
/// to the holder, as `os_unfair_lock` would: the sections this lock guards are short and never
/// call user code, so a holder is never held up long.)
///
/// Store it as a `let` of a class, next to the state it guards, and touch that state only inside
/// ``withLock(_:)``. Not reentrant. Its waiters sleep in the parking lot (`UnsafeThreadParking`).
public struct InPlaceLock: ~Copyable, Sendable {
    /// 0: free; 1: held; 2: held, and a thread may be parked waiting for it.
    @usableFromInline let word = Atomic<UInt32>(0)
    /// Tells this lock's waiters from other locks' in the parking lot (never 0).
    @usableFromInline let id: UInt

    /// A lock, free.
    public init() {
        id = ParkingLot.nextID()
    }

    /// Runs `body` holding the lock.
    @inlinable
    public borrowing func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { lockContended() }
        defer { if word.exchange(0, ordering: .releasing) != 1 { ParkingLot.wakeOne(id) } }
        return try body()
    }

    /// Waits for the lock, parked, and takes it (marked as possibly awaited, so that its release
    /// wakes the next waiter).
    @usableFromInline @inline(never)
    borrowing func lockContended() {
        ParkingLot.park(id) { word.exchange(2, ordering: .acquiring) == 0 }
    }
}
