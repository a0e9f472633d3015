/// Something the archive could not do as asked. Carries keys and reasons, never archived values.
public struct ArchiveProblem: Sendable, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The bytes were not a readable archive; the default value was used and the bytes were
        /// kept aside under `keptAt`.
        case unreadable(keptAt: String)
        /// The archive was written by another shape of the type: what could be read was restored,
        /// the listed properties took their defaults, and the old bytes were kept aside under `keptAt`.
        case partiallyRestored(defaulted: [String], keptAt: String)
        /// The store failed to read, write or delete.
        case storeFailed(operation: String)
    }

    /// The archive key.
    public let key: String
    public let kind: Kind
    /// A readable explanation (the underlying error's description, no values).
    public let reason: String

    public init(key: String, kind: Kind, reason: String) {
        self.key = key
        self.kind = kind
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .unreadable(let keptAt):
            "archive \(key) is unreadable (\(reason)); restored defaults and kept the bytes at \(keptAt)"
        case .partiallyRestored(let defaulted, let keptAt):
            "archive \(key) has another shape; restored what it could, defaults for [\(defaulted.joined(separator: ", "))], old bytes kept at \(keptAt)"
        case .storeFailed(let operation):
            "archive \(key): \(operation) failed (\(reason))"
        }
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
