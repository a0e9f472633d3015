import FlaskLocking

/// The unknown keys already reported for each reactor, so that `reaction.on(key)` with a key the
/// state can never have is reported once per reactor and key, not at every commit.
///
/// Keyed by the reactor's identifier: a reactor made at the address of a freed one is not told
/// again of a wrong key the freed one was told of (the same key, so most likely the same line).
enum UnknownKeyReports {
    private static let reported = LockedValue(Set<Reported>())

    private struct Reported: Hashable {
        let reactor: ObjectIdentifier
        let key: String
    }

    /// Whether `key` was not reported for `reactor` yet; records it.
    static func isFirst(of key: String, by reactor: ObjectIdentifier) -> Bool {
        reported.withLock { $0.insert(Reported(reactor: reactor, key: key)).inserted }
    }
}
