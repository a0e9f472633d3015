import FlaskLockingSource

/// A reference that is not `Sendable`.
final class Cache {
    var items: [Int] = []
}

/// A `LockedValue` of a non-`Sendable` value is not `Sendable`: it cannot be shared with another
/// task, from which `withLock { $0 }` would hand the reference out of the lock.
func leak() {
    let locked = LockedValue(Cache())
    Task.detached {
        let cache = locked.withLock { $0 }
        cache.items.append(1)
    }
    locked.withLock { $0.items.append(2) }
}
