import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Where threads sleep: the waiters of the package's lock (`ParkingLot`), and producers waiting for
// room on a bus (`ThreadGate`). Both are pthread mutexes and condition variables at stable
// addresses, which the thread sanitizer understands (a futex it does not see). Their invariants
// are written beside each; what can be checked is (every pthread call's result, in debug builds).

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

/// A gate threads sleep at until a condition holds: a pthread mutex and condition variable, at
/// stable addresses. Whether a sleeper may go on is a condition its owner holds; it is read
/// holding the gate's mutex, and the owner opens the gate (takes the mutex and wakes every
/// sleeper) after it changes that condition, so a wake-up is never missed. (A bus's producers wait
/// here for room on its main lane.)
///
/// `@unchecked Sendable`: the mutex and condition are used only through the pthread functions,
/// which synchronize themselves.
public final class ThreadGate: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A gate nobody sleeps at yet.
    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let made = (pthread_mutex_init(mutex, nil), pthread_cond_init(condition, nil))
        precondition(made == (0, 0), "cannot make a thread gate")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Sleeps until `mayGoOn` is true (it is checked first, and after each wake-up, holding the
    /// gate's mutex).
    public func sleep(until mayGoOn: () -> Bool) {
        pthread_mutex_lock(mutex)
        while !mayGoOn() { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Wakes every sleeper, to check its condition again.
    public func open() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
