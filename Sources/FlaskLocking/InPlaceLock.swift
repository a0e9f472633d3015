import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The package's one lock: stored in place in the object whose state it guards (no allocation, no
/// initialization to undo), never spinning, and understood by the thread sanitizer.
///
/// - On Apple platforms it is `Synchronization.Mutex`, an `os_unfair_lock`, which donates a
///   waiter's priority to the holder. (A lock that spins is exposed to priority inversion there,
///   which is why `OSSpinLock` was deprecated.)
/// - On Linux it is a word taken with one compare-and-swap and given back with one exchange;
///   a thread that finds it taken sleeps on a condition variable of a small shared parking lot
///   until the holder wakes it. (`Mutex` is built on futexes there, which the thread sanitizer
///   does not see: it reports every access guarded by one as a race, so sanitizer runs would not
///   test the code that ships. The sanitizer sees this lock's atomics and condition variables.)
///
/// Store it as a `let` of a class, next to the state it guards, and touch that state only inside
/// ``withLock(_:)``. Not reentrant.
///
/// `@unchecked Sendable`: it is a lock; the state it guards is touched only while it is held.
public struct InPlaceLock: ~Copyable, @unchecked Sendable {
    #if canImport(Darwin)
        @usableFromInline let mutex = Mutex<Void>(())
    #else
        /// 0: free; 1: held; 2: held, and a thread may be parked waiting for it.
        @usableFromInline let word = Atomic<UInt32>(0)
        /// Where this lock's waiters park (one of ``ParkingLot/stripes``), chosen once.
        @usableFromInline let stripe: Int
    #endif

    /// A lock, free.
    public init() {
        #if !canImport(Darwin)
            stripe = ParkingLot.nextStripe()
        #endif
    }

    /// Runs `body` holding the lock.
    @inlinable
    public borrowing func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
            return try mutex.withLock { _ in try body() }
        #else
            if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { lockContended() }
            defer { if word.exchange(0, ordering: .releasing) != 1 { ParkingLot.wakeAll(stripe) } }
            return try body()
        #endif
    }

    #if !canImport(Darwin)
        /// Waits for the lock, parked, and takes it (marked as possibly awaited).
        @usableFromInline @inline(never)
        borrowing func lockContended() {
            ParkingLot.park(stripe) { word.exchange(2, ordering: .acquiring) == 0 }
        }
    #endif
}

#if !canImport(Darwin)
    /// Where threads wait for an ``InPlaceLock`` held by another thread: a few mutex-and-condition
    /// pairs shared by every lock. A lock whose word says it may be awaited wakes every thread
    /// parked on its stripe when it is released; each checks its own lock again.
    @usableFromInline
    enum ParkingLot {
        private static let count = 16
        private static let next = Atomic<Int>(0)

        /// The stripes: each a mutex and a condition variable, at stable addresses, made once.
        // `nonisolated(unsafe)`: the pointer never changes; what it points to is used only
        // through the pthread functions, which synchronize themselves.
        private nonisolated(unsafe) static let stripes: UnsafeMutablePointer<(pthread_mutex_t, pthread_cond_t)> = {
            let stripes = UnsafeMutablePointer<(pthread_mutex_t, pthread_cond_t)>.allocate(capacity: count)
            for index in 0..<count {
                (stripes + index).initialize(to: (pthread_mutex_t(), pthread_cond_t()))
                let mutex = pthread_mutex_init(&stripes[index].0, nil)
                let condition = pthread_cond_init(&stripes[index].1, nil)
                precondition(mutex == 0 && condition == 0, "cannot make the parking lot's stripes")
            }
            return stripes
        }()

        /// A stripe for a new lock (round robin).
        static func nextStripe() -> Int {
            next.add(1, ordering: .relaxed).oldValue & (count - 1)
        }

        /// Waits on `stripe` until `tryTake` takes the lock. `tryTake` is called holding the
        /// stripe's mutex, so a release's wake-up, which takes it too, is never missed.
        @usableFromInline
        static func park(_ stripe: Int, until tryTake: () -> Bool) {
            let pair = stripes + stripe
            let locked = pthread_mutex_lock(&pair.pointee.0)
            assert(locked == 0, "pthread_mutex_lock failed: \(locked)")
            while !tryTake() {
                let waited = pthread_cond_wait(&pair.pointee.1, &pair.pointee.0)
                assert(waited == 0, "pthread_cond_wait failed: \(waited)")
            }
            let unlocked = pthread_mutex_unlock(&pair.pointee.0)
            assert(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }

        /// Wakes every thread parked on `stripe`.
        @usableFromInline @inline(never)
        static func wakeAll(_ stripe: Int) {
            let pair = stripes + stripe
            let locked = pthread_mutex_lock(&pair.pointee.0)
            assert(locked == 0, "pthread_mutex_lock failed: \(locked)")
            let woken = pthread_cond_broadcast(&pair.pointee.1)
            assert(woken == 0, "pthread_cond_broadcast failed: \(woken)")
            let unlocked = pthread_mutex_unlock(&pair.pointee.0)
            assert(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
    }
#endif
