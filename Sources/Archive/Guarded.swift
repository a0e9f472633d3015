import Foundation

/// A value behind an `NSLock` (which the thread sanitizer understands), reached only through
/// `withLock`.
///
/// `@unchecked Sendable`: the value is only touched inside `withLock`, with the lock held.
final class Guarded<Value>: @unchecked Sendable {
    // Only reached with the lock held, which already excludes overlapping access.
    @exclusivity(unchecked) private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
