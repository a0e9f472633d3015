import Archive
import Foundation

/// An archive store in memory that records every write and can be told to fail.
///
/// `@unchecked Sendable`: its storage and callback are only touched with the lock held; set
/// `failWrites` before handing the store to an archiver.
public final class MemoryArchiveStore: ArchiveStore, @unchecked Sendable {
    public init() {}

    private var storage: [String: Data] = [:]
    private let lock = NSLock()
    public let writes = Recorder<String>()
    public var failWrites = false
    private var onWrite: (@Sendable () -> Void)?

    public func data(forKey key: String) throws -> Data? {
        lock.lock()
        defer { lock.unlock() }
        return storage[key]
    }

    public func set(_ data: Data, forKey key: String) throws {
        lock.lock()
        let fail = failWrites
        if !fail { storage[key] = data }
        let callback = onWrite
        lock.unlock()
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
