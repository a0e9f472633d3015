/// Which live objects archive under each key, so that a second one is reported.
///
/// An owner claims a key when it restores or writes it, and holds it until it is freed. An owner
/// that claims a key other live owners hold is reported, once (the archive then holds whichever of
/// them wrote last).
///
/// Used only with the archiver's lock held.
///
/// `@unchecked Sendable`: it holds its owners weakly and only compares them by identity and tests
/// them for nil; no owner is ever called or handed out, so none can reach another thread through it.
struct ArchiveClaims: @unchecked Sendable {
    private struct Owner {
        weak var object: AnyObject?
    }

    private var byKey: [String: [Owner]] = [:]

    /// Claims `key` for `owner`.
    ///
    /// - Returns: true when other live owners hold `key` and `owner` had not claimed it yet.
    mutating func claim(_ key: String, by owner: AnyObject) -> Bool {
        var owners = byKey[key] ?? []
        owners.removeAll { $0.object == nil }
        if owners.contains(where: { $0.object === owner }) {
            byKey[key] = owners
            return false
        }
        let shared = !owners.isEmpty
        owners.append(Owner(object: owner))
        byKey[key] = owners
        return shared
    }
}
