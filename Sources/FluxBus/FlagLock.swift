import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A lock made of one atomic flag, stored in place in the object it guards: no allocation, no
/// initialization, nothing to destroy. For state that is touched a few times in an object's life
/// and almost never by two threads at once (a lock's release, a chain being built), where a
/// `LockedValue` would cost an allocation and a mutex per object. A thread that finds it taken
/// yields until it is free.
///
/// The guarded state lives beside it in the owner; every access to that state happens inside
/// ``withLock(_:)`` (or between ``lock()`` and ``unlock()``). The thread sanitizer sees the flag's
/// acquiring and releasing atomics.
package struct FlagLock: ~Copyable, Sendable {
    private let taken = Atomic<Bool>(false)

    package init() {}

    /// Takes the flag, yielding while another thread holds it.
    package func lock() {
        while !taken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            sched_yield()
        }
    }

    /// Gives the flag back.
    package func unlock() {
        taken.store(false, ordering: .releasing)
    }

    /// Runs `body` holding the flag. Generic code that other modules call unspecialized: there,
    /// prefer ``lock()`` and ``unlock()``.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
