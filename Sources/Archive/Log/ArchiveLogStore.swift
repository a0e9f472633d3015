import Foundation

/// A store that keeps, beside each key's value, a log of the patches made since (``ArchivePatch``):
/// what lets an ``Archiver`` acknowledge a durable write at the cost of the change and a sync,
/// whatever the value's size. ``FileArchiveStore`` is one (`<file>.log`, JSON lines beside the
/// archive). A store that is not writes values whole, as before.
///
/// The store presents the value with its log applied: ``ArchiveStore/data(forKey:)`` is the value
/// now, and ``ArchiveStore/set(_:forKey:)`` of a key with a log appends the value whole to it (so
/// that no write ever races a log it does not know of). The log of a key belongs to the key's owner,
/// as its value does (``ArchiveStore/claim(key:)``).
public protocol ArchiveLogStore: ArchiveStore {
    /// Appends `lines` (patches' lines, each ending with a newline) to the key's log, and returns
    /// once they are durable (synced). A log whose last line a crash cut short is trimmed to its
    /// whole lines first.
    func appendLog(_ lines: Data, forKey key: String) throws
    /// Writes `snapshot` as the key's value (atomically), then drops the first `bytes` bytes of its
    /// log (the patches `snapshot` holds), keeping what was appended after them.
    func compactLog(forKey key: String, snapshot: Data, droppingFirst bytes: Int) throws
    /// The size of the key's log in bytes (0 without one).
    func logSize(forKey key: String) throws -> Int
}
