#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value behind a `pthread_mutex_t`, reached only through ``withLock(_:)``.
///
/// The project uses this rather than `Synchronization.Mutex` because on Linux `Mutex` is built on
/// futexes that the thread sanitizer does not see, so every access under it is reported as a race;
/// a pthread mutex is understood by the sanitizer, and costs about the same uncontended.
///
/// `@unchecked Sendable`: the value is only ever touched inside `withLock`, with the mutex held.
package final class LockedValue<Value>: @unchecked Sendable {
    // Only reached with the mutex held, which already excludes overlapping access.
    @exclusivity(unchecked) private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
