#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where producer threads sleep while a bus's main lane is full (see ``Flux/backlogLimit``), until
/// the bus takes the lane to run it and opens the gate.
///
/// A pthread mutex and condition variable, which the thread sanitizer understands, at stable
/// addresses. Whether a sleeper may go on is a condition the bus's queue holds (its room
/// generation); it is read holding the gate's mutex, and the bus opens the gate (takes the mutex
/// and wakes every sleeper) after it changes that condition, so a wake-up is never missed.
///
/// `@unchecked Sendable`: the mutex and condition are used only through the pthread functions,
/// which synchronize themselves.
final class FluxRoomGate: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let made = (pthread_mutex_init(mutex, nil), pthread_cond_init(condition, nil))
        precondition(made == (0, 0), "cannot make a bus's room gate")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Sleeps until `mayGoOn` is true (it is checked first, and after each wake-up, holding the
    /// gate's mutex).
    func sleep(until mayGoOn: () -> Bool) {
        pthread_mutex_lock(mutex)
        while !mayGoOn() { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Wakes every sleeper, to check its condition again.
    func open() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
