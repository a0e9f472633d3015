// docs/locks.md's samples beyond the seed's (the seed's are in SeedSpecialFeatures.swift).
import FlaskAPI

/// The result of a request that an exclusive mix started (docs/locks.md).
struct RequestLoaded: FlaskAction {
    let value: Int
}

// > Writing the result of async work
func finishRequest(holding lock: FluxLock?, with value: Int) {
    // Queued behind the lock; it runs once the lock is released.
    Flask.substances(reactTo: RequestLoaded(value: value))
    lock?.release()
}
