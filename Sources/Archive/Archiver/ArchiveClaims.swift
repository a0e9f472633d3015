import FlaskLocking

/// Which live objects archive under each key, so that a second one is reported.
///
/// An owner claims a key when it restores or writes it, and holds it until it is freed. An owner
/// that claims a key other live owners hold is reported, once (the archive then holds whichever of
/// them wrote last).
///
/// Used only with the archiver's lock held. Owners are held by their weak identities: never called
/// or handed out, only compared and tested for life.
struct ArchiveClaims: Sendable {
    private var byKey: [String: [WeakIdentity]] = [:]

    /// Claims `key` for `owner`.
    ///
    /// - Returns: true when other live owners hold `key` and `owner` had not claimed it yet.
    mutating func claim(_ key: String, by owner: AnyObject) -> Bool {
        var owners = byKey[key] ?? []
        owners.removeAll { !$0.isAlive }
        if owners.contains(where: { $0.refers(to: owner) }) {
            byKey[key] = owners
            return false
        }
        let shared = !owners.isEmpty
        owners.append(WeakIdentity(owner))
        byKey[key] = owners
        return shared
    }
}
