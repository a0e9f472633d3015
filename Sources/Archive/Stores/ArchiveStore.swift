import Foundation

/// Where archived bytes live. Implementations must be safe to call from any thread.
///
/// **One owner per key.** An archive is acknowledged as stored (`stored()`) once the store wrote
/// it, so a store that more than one process (or more than one store object) can open must not let
/// a second owner overwrite the first in silence: ``claim(key:)`` gives the key to one owner at a
/// time, and ``set(_:forKey:)`` and ``removeData(forKey:)`` of a key another live owner holds
/// throw ``ArchiveKeyOwnedError``, writing nothing. The claim must go away with its owner, however
/// it ends (a lock the kernel releases, not a file left behind). A store only one owner can ever
/// open (an in-memory store of one object) keeps the promise by doing nothing.
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
    /// Claims `key` for this store, as a restore does before it reads: succeeds when the store owns
    /// the key or gets it now; throws ``ArchiveKeyOwnedError`` while another live owner holds it.
    /// The default does nothing (a store only one owner can open).
    func claim(key: String) throws
}

extension ArchiveStore {
    /// Does nothing: a store only one owner can open needs no claim.
    public func claim(key: String) throws {}

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
