import Foundation

/// Collects values from handlers that run on other threads.
///
/// `@unchecked Sendable`: the values are only touched with the lock held.
public final class Recorder<Value: Sendable>: @unchecked Sendable {
    private var values: [Value] = []
    private let lock = NSLock()

    public init() {}

    public func append(_ value: Value) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    public var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }

    public var count: Int { all.count }

    /// Forgets what was collected.
    public func removeAll() {
        lock.lock()
        values.removeAll()
        lock.unlock()
    }
}
