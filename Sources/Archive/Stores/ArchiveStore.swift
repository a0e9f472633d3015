import Foundation

/// Where archived bytes live. Implementations must be safe to call from any thread.
public protocol ArchiveStore: Sendable {
    /// The bytes stored under `key`, or nil.
    ///
    /// - Throws: ``ArchiveForeignValueError`` when the key holds a value that is not archive bytes
    ///   (another part of the app stored it), so that the archiver keeps it aside instead of
    ///   overwriting it; any other error when the medium fails.
    func data(forKey key: String) throws -> Data?
    /// Stores `data` under `key`, replacing what was there, atomically where the medium allows.
    func set(_ data: Data, forKey key: String) throws
    /// Deletes what is stored under `key`; deleting a missing key is not an error.
    func removeData(forKey key: String) throws
    /// Copies what is stored under `key`, whatever its kind, to `destination`. The default copies
    /// the bytes; a store that can hold values of other kinds copies those too.
    func copyValue(forKey key: String, to destination: String) throws
}

extension ArchiveStore {
    /// Copies the data under `key` to `destination`, byte for byte; nothing when there is none.
    public func copyValue(forKey key: String, to destination: String) throws {
        if let data = try data(forKey: key) { try set(data, forKey: destination) }
    }
}

/// A store found a value of another kind under an archive key: not bytes, so not an archive.
public struct ArchiveForeignValueError: Error, Sendable, CustomStringConvertible {
    /// The kind of value found (`String`, `Dictionary`, ...), never the value.
    public let typeName: String

    /// The error for a value of the kind named `typeName`.
    public init(typeName: String) {
        self.typeName = typeName
    }

    public var description: String { "a \(typeName) is stored under the key, not archive bytes" }
}
