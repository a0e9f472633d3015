import Dispatch
import Foundation

/// An archiver's pending writes by key, with the write scheduled last kept at hand: an archived
/// substance schedules its key again on every commit, and comparing with the last key (usually the
/// very same string, equal at once) spares hashing it and replacing the write in the dictionary.
///
/// Used only with the archiver's `pending` lock held.
struct PendingWrites {
    /// A write waiting for its deadline: updated in place by later calls for its key, until it is
    /// taken out to be performed.
    ///
    /// `@unchecked Sendable`: read and written only with the archiver's lock held while pending;
    /// once taken out, no later call can reach it, and only the thread that performs it reads it.
    final class Write: @unchecked Sendable {
        var encode: @Sendable () throws -> Data
        var onFailure: (@Sendable (ArchiveProblem) -> Void)?
        var store: any ArchiveStore
        var deadline: DispatchTime

        init(
            encode: @escaping @Sendable () throws -> Data, onFailure: (@Sendable (ArchiveProblem) -> Void)?,
            store: any ArchiveStore, deadline: DispatchTime
        ) {
            self.encode = encode
            self.onFailure = onFailure
            self.store = store
            self.deadline = deadline
        }
    }

    private var byKey: [String: Write] = [:]
    private var last: (key: String, write: Write)?

    /// Schedules a write of `key`, replacing a pending one. Returns true for a key that had none
    /// (its timer must be armed).
    mutating func schedule(
        _ key: String, encode: @escaping @Sendable () throws -> Data,
        onFailure: (@Sendable (ArchiveProblem) -> Void)?, store: any ArchiveStore, deadline: DispatchTime
    ) -> Bool {
        if let write = last?.key == key ? last?.write : byKey[key] {
            write.encode = encode
            write.onFailure = onFailure
            write.store = store
            write.deadline = deadline
            last = (key, write)
            return false
        }
        let write = Write(encode: encode, onFailure: onFailure, store: store, deadline: deadline)
        byKey[key] = write
        last = (key, write)
        return true
    }

    subscript(key: String) -> Write? { byKey[key] }

    var keys: Dictionary<String, Write>.Keys { byKey.keys }

    /// Takes the write of `key` out, if one is pending.
    @discardableResult
    mutating func remove(_ key: String) -> Write? {
        if last?.key == key { last = nil }
        return byKey.removeValue(forKey: key)
    }

    /// Takes every pending write out.
    mutating func removeAll() -> [String: Write] {
        last = nil
        defer { byKey = [:] }
        return byKey
    }
}
