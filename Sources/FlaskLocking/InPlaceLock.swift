import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
/// ``withLock(_:)``. Not reentrant.
///
/// `@unchecked Sendable`: it is a lock; the state it guards is touched only while it is held.
public struct InPlaceLock: ~Copyable, @unchecked Sendable {
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

/// Where threads wait for an ``InPlaceLock`` held by another thread: a few stripes shared by every
/// lock, each a mutex and a queue of waiters. A waiter's record (its lock's id, a condition
/// variable and whether it was woken) lives on its own stack while it waits.
@usableFromInline
enum ParkingLot {
    private static let count = 16
    private static let next = Atomic<UInt>(1)

    /// A waiter, queued on its stripe while it sleeps.
    private struct Waiter {
        var id: UInt
        var woken = false
        var condition = pthread_cond_t()
        var next: UnsafeMutablePointer<Waiter>?
    }

    /// A stripe: its mutex, and the first and last of its queue (guarded by the mutex).
    private struct Stripe {
        var mutex = pthread_mutex_t()
        var first: UnsafeMutablePointer<Waiter>?
        var last: UnsafeMutablePointer<Waiter>?
    }

    /// The stripes, at stable addresses, made once.
    // `nonisolated(unsafe)`: the pointer never changes; each stripe is touched only holding its
    // mutex (the pthread functions synchronize themselves).
    private nonisolated(unsafe) static let stripes: UnsafeMutablePointer<Stripe> = {
        let stripes = UnsafeMutablePointer<Stripe>.allocate(capacity: count)
        for index in 0..<count {
            (stripes + index).initialize(to: Stripe())
            let made = pthread_mutex_init(&stripes[index].mutex, nil)
            precondition(made == 0, "cannot make the parking lot's stripes")
        }
        return stripes
    }()

    /// An id for a new lock: its stripe is `id % count` (round robin).
    static func nextID() -> UInt {
        next.add(1, ordering: .relaxed).oldValue
    }

    private static func stripe(of id: UInt) -> UnsafeMutablePointer<Stripe> {
        stripes + Int(id % UInt(count))
    }

    /// Waits until `tryTake` takes the lock `id`. `tryTake` is called holding the stripe's mutex,
    /// and a waiter is queued under the same hold, so a release's wake-up, which takes the mutex
    /// too, finds it.
    @usableFromInline
    static func park(_ id: UInt, until tryTake: () -> Bool) {
        let stripe = stripe(of: id)
        lock(&stripe.pointee.mutex)
        defer { unlock(&stripe.pointee.mutex) }
        guard !tryTake() else { return }
        var waiter = Waiter(id: id)
        withUnsafeMutablePointer(to: &waiter) { waiter in
            let made = pthread_cond_init(&waiter.pointee.condition, nil)
            precondition(made == 0, "cannot make a condition variable: \(made)")
            repeat {
                waiter.pointee.woken = false
                waiter.pointee.next = nil
                if let last = stripe.pointee.last { last.pointee.next = waiter } else { stripe.pointee.first = waiter }
                stripe.pointee.last = waiter
                while !waiter.pointee.woken {
                    let waited = pthread_cond_wait(&waiter.pointee.condition, &stripe.pointee.mutex)
                    assert(waited == 0, "pthread_cond_wait failed: \(waited)")
                }
            } while !tryTake()
            pthread_cond_destroy(&waiter.pointee.condition)
        }
    }

    /// Wakes the first thread waiting for the lock `id`, if any: it takes the lock or waits again.
    @usableFromInline @inline(never)
    static func wakeOne(_ id: UInt) {
        let stripe = stripe(of: id)
        lock(&stripe.pointee.mutex)
        defer { unlock(&stripe.pointee.mutex) }
        var previous: UnsafeMutablePointer<Waiter>?
        var current = stripe.pointee.first
        while let waiter = current, waiter.pointee.id != id {
            previous = waiter
            current = waiter.pointee.next
        }
        guard let waiter = current else { return }
        // Out of the queue, then woken: it queues itself again if it does not get the lock.
        if let previous {
            previous.pointee.next = waiter.pointee.next
        } else {
            stripe.pointee.first = waiter.pointee.next
        }
        if stripe.pointee.last == waiter { stripe.pointee.last = previous }
        waiter.pointee.woken = true
        let signalled = pthread_cond_signal(&waiter.pointee.condition)
        assert(signalled == 0, "pthread_cond_signal failed: \(signalled)")
    }

    private static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let locked = pthread_mutex_lock(mutex)
        assert(locked == 0, "pthread_mutex_lock failed: \(locked)")
    }

    private static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let unlocked = pthread_mutex_unlock(mutex)
        assert(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
    }
}
