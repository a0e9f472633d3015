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
package struct LockedValue<Value>: @unchecked Sendable {
    private let storage: Storage

    package init(_ value: Value) {
        // The mutex lives in the same allocation as the value (a managed buffer's tail element has
        // a stable address, which a pthread mutex needs): one allocation per locked value, not two.
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// The value as header, the mutex as the one element.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }
}
