/// A key's writes succeed again after failing: the end of a failure episode that an
/// ``ArchiveProblem`` reported when it began.
public struct ArchiveRecovery: Sendable, Equatable, CustomStringConvertible {
    /// The archive key.
    public let key: String
    /// How many attempts in a row had failed.
    public let failedAttempts: Int

    /// The recovery of `key` after `failedAttempts` failed attempts.
    public init(key: String, failedAttempts: Int) {
        self.key = key
        self.failedAttempts = failedAttempts
    }

    public var description: String {
        "archive \(ArchiveProblem.shortened(key)) is written again, after \(failedAttempts) failed attempt\(failedAttempts == 1 ? "" : "s")"
    }
}
