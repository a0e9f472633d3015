import Foundation

/// Where archived bytes live. Implementations must be safe to call from any thread.
public protocol ArchiveStore: Sendable {
    /// The bytes stored under `key`, or nil.
    func data(forKey key: String) throws -> Data?
    /// Stores `data` under `key`, replacing what was there, atomically where the medium allows.
    func set(_ data: Data, forKey key: String) throws
    /// Deletes what is stored under `key`; deleting a missing key is not an error.
    func removeData(forKey key: String) throws
}
