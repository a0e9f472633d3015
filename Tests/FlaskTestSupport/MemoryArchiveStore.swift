import Archive
import Foundation

/// An archive store in memory that records every write and can be told to fail.
///
/// `@unchecked Sendable`: its storage, flags and callback are only touched with the lock held.
public final class MemoryArchiveStore: ArchiveStore, @unchecked Sendable {
    public init() {}

    private var storage: [String: Data] = [:]
    private let lock = NSLock()
    /// The keys written, in order.
    public let writes = Recorder<String>()
    /// The keys whose writes were attempted, failed ones included, in order.
    public let attempts = Recorder<String>()
    private var failingWrites = false
    private var failingReads = false

    /// Whether writes throw (and store nothing).
    public var failWrites: Bool {
        get { locked { failingWrites } }
        set { locked { failingWrites = newValue } }
    }

    /// Whether reads throw.
    public var failReads: Bool {
        get { locked { failingReads } }
        set { locked { failingReads = newValue } }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
    private var onWrite: (@Sendable () -> Void)?
    private var onAttempt: (@Sendable () -> Void)?

    /// Calls `callback` at each write attempt, before it succeeds or fails (nil: no longer).
    public func whenAttempted(_ callback: (@Sendable () -> Void)?) {
        lock.lock()
        onAttempt = callback
        lock.unlock()
    }

    public func data(forKey key: String) throws -> Data? {
        lock.lock()
        defer { lock.unlock() }
        if failingReads { throw CocoaError(.fileReadNoPermission) }
        return storage[key]
    }

    public func set(_ data: Data, forKey key: String) throws {
        lock.lock()
        // Whether it fails is decided when the attempt starts, before the callback.
        let fail = failingWrites
        let attempted = onAttempt
        lock.unlock()
        attempted?()
        lock.lock()
        if !fail { storage[key] = data }
        let callback = onWrite
        lock.unlock()
        attempts.append(key)
        if fail { throw CocoaError(.fileWriteNoPermission) }
        writes.append(key)
        callback?()
    }

    public func removeData(forKey key: String) throws {
        lock.lock()
        storage[key] = nil
        lock.unlock()
    }

    /// Calls `callback` after each write.
    public func whenWritten(_ callback: @escaping @Sendable () -> Void) {
        lock.lock()
        onWrite = callback
        lock.unlock()
    }
}
