import Foundation

/// Collects values from handlers that run on other threads.
///
/// `@unchecked Sendable`: the values and the waiters are only touched with the lock held.
public final class Recorder<Value: Sendable>: @unchecked Sendable {
    private var values: [Value] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private let lock = NSLock()

    public init() {}

    public func append(_ value: Value) {
        lock.lock()
        values.append(value)
        let count = values.count
        let ready = waiters.filter { $0.count <= count }
        waiters.removeAll { $0.count <= count }
        lock.unlock()
        for waiter in ready { waiter.continuation.resume() }
    }

    public var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }

    public var count: Int { all.count }

    /// Returns once `count` values or more were collected: a test's way to wait for work on
    /// another thread to reach a point, instead of hoping an unrelated wait covers it.
    public func waitForCount(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if values.count >= count {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append((count, continuation))
                lock.unlock()
            }
        }
    }

    /// Forgets what was collected.
    public func removeAll() {
        lock.lock()
        values.removeAll()
        lock.unlock()
    }
}
