import Archive
import FlaskTestSupport
import Foundation

/// A fresh directory under the temporary directory.
func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("flask-archive-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A store in memory that records every write and can be told to fail.
final class MemoryStore: ArchiveStore, @unchecked Sendable {
    private var storage: [String: Data] = [:]
    private let lock = NSLock()
    let writes = Recorder<String>()
    var failWrites = false
    private var onWrite: (@Sendable () -> Void)?

    func data(forKey key: String) throws -> Data? {
        lock.lock()
        defer { lock.unlock() }
        return storage[key]
    }

    func set(_ data: Data, forKey key: String) throws {
        lock.lock()
        let fail = failWrites
        if !fail { storage[key] = data }
        let callback = onWrite
        lock.unlock()
        if fail { throw CocoaError(.fileWriteNoPermission) }
        writes.append(key)
        callback?()
    }

    func removeData(forKey key: String) throws {
        lock.lock()
        storage[key] = nil
        lock.unlock()
    }

    /// Calls `callback` after each write.
    func whenWritten(_ callback: @escaping @Sendable () -> Void) {
        lock.lock()
        onWrite = callback
        lock.unlock()
    }
}

/// The path of an executable built next to the test bundle.
func siblingExecutable(_ name: String) -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // On Apple platforms the tests run inside an .xctest bundle.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
        || directory.lastPathComponent == "Contents"
    {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent(name)
}
