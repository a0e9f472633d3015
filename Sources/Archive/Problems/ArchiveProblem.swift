/// Something the archive could not do as asked. Carries keys, coding paths, type names and
/// reasons, never archived values.
public struct ArchiveProblem: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, and where what was stored went.
    public enum Kind: Sendable, Equatable {
        /// The stored bytes (or a value of another kind stored under the key) were not a readable
        /// archive; the default value was used and what was stored was kept aside under `keptAt`.
        case unreadable(keptAt: String)
        /// The archive was written by another shape of the type: what could be read was restored,
        /// the listed coding paths took their defaults (or, for an element of an array or a
        /// dictionary, were left out), and the old bytes were kept aside under `keptAt`.
        case partiallyRestored(defaulted: [String], keptAt: String)
        /// The store failed to read, write or delete.
        case storeFailed(operation: String)
        /// The value could not be encoded (a type that refuses, a number JSON cannot hold, nesting
        /// deeper than a reader accepts); nothing was written and the previous archive is intact.
        case encodingFailed
        /// Another live owner archives under this key: another object of this process, or another
        /// process or store of the same directory (see ``ArchiveStore/claim(key:)``, and
        /// ``Archiver/scheduleWrite(key:after:maxDelay:store:owner:encode:patch:onFailure:onRecovery:)``).
        case keyInUse
        /// The change was never applied (a middleware stopped it, say), so there is nothing of it
        /// to store: acknowledging it would acknowledge something that did not happen.
        case notApplied
        /// The store no longer finds the key where it owned it (its directory was removed or
        /// renamed, its lock file deleted or replaced: see ``ArchiveOwnershipLostError``): nothing
        /// was written, and nothing more will be until the key is restored again.
        case ownershipLost
    }

    /// The archive key.
    public let key: String
    /// What went wrong.
    public let kind: Kind
    /// A readable explanation: types, coding paths and error codes, no values.
    public let reason: String

    /// A problem with the archive under `key`; `reason` must hold no archived value.
    public init(key: String, kind: Kind, reason: String) {
        self.key = key
        self.kind = kind
        self.reason = reason
    }

    public var description: String {
        let key = ArchiveProblem.shortened(self.key)
        return switch kind {
        case .unreadable(let keptAt):
            "archive \(key) is unreadable (\(reason)); restored defaults and kept what was stored at \(keptAt)"
        case .partiallyRestored(let defaulted, let keptAt):
            "archive \(key) has another shape (\(reason)); restored what it could, defaults for "
                + "[\(ArchiveProblem.abbreviated(defaulted))], old bytes kept at \(keptAt)"
        case .storeFailed(let operation):
            "archive \(key): \(operation) failed (\(reason))"
        case .encodingFailed:
            "archive \(key): the value could not be encoded (\(reason)); the previous archive is kept"
        case .keyInUse:
            "archive \(key) has another live owner (\(reason))"
        case .ownershipLost:
            "archive \(key) is no longer this owner's (\(reason))"
        case .notApplied:
            "nothing stored\(key.isEmpty ? "" : " under \(key)"): the change was not applied (\(reason))"
        }
    }

    /// `text` as a report writes it: whole up to `limit` characters, else its start, an ellipsis
    /// and its length, so that a 10,000-character key or name does not fill a log.
    public static func shortened(_ text: String, limit: Int = 80) -> String {
        guard text.count > limit else { return text }
        return "\(text.prefix(limit))… (\(text.count) characters)"
    }

    /// The first few of `paths`, and how many more.
    static func abbreviated(_ paths: [String], limit: Int = 10) -> String {
        guard paths.count > limit else { return paths.joined(separator: ", ") }
        return paths.prefix(limit).joined(separator: ", ") + " and \(paths.count - limit) more"
    }
}

/// The result of reading an archive: always a value, and what went wrong on the way.
public struct ArchiveRestoration<Value> {
    /// The restored value, or the default.
    public let value: Value
    /// Whether anything was stored under the key.
    public let found: Bool
    /// What could not be restored as stored.
    public let problems: [ArchiveProblem]
}
