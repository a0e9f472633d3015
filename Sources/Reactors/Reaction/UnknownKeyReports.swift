import FlaskLocking

/// The unknown keys already reported for each reactor, so that `reaction.on(key)` with a key the
/// state can never have is reported once per reactor and key, not at every commit.
///
/// Keyed by the reactor's identifier, and forgotten when the reactor goes (`Reactor.deinit`): a
/// reactor made at the address of a freed one is told again, so that each test that asserts the
/// report sees it.
enum UnknownKeyReports {
    private static let reported = LockedValue([ObjectIdentifier: Set<String>]())

    /// Whether `key` was not reported for `reactor` yet; records it.
    static func isFirst(of key: String, by reactor: ObjectIdentifier) -> Bool {
        reported.withLock { $0[reactor, default: []].insert(key).inserted }
    }

    /// Forgets what was reported for `reactor`, which is going.
    static func forget(_ reactor: ObjectIdentifier) {
        reported.withLock { _ = $0.removeValue(forKey: reactor) }
    }
}
