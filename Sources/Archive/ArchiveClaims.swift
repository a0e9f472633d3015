/// Which live object archives under each key, so that a second one is reported.
///
/// The first owner to restore or write a key claims it; the claim lapses when that owner is freed.
/// Another live owner of the same key is reported once (the archive then holds whichever of the two
/// wrote last).
///
/// Used only with the archiver's lock held.
struct ArchiveClaims {
    private struct Claim {
        weak var owner: AnyObject?
        /// The owners already reported as a second one.
        var reported: Set<ObjectIdentifier> = []
    }

    private var byKey: [String: Claim] = [:]

    /// Claims `key` for `owner`.
    ///
    /// - Returns: true when another live owner holds `key` and `owner` was not reported for it yet.
    mutating func claim(_ key: String, by owner: AnyObject) -> Bool {
        if let holder = byKey[key]?.owner {
            if holder === owner { return false }
            return byKey[key]!.reported.insert(ObjectIdentifier(owner)).inserted
        }
        byKey[key] = Claim(owner: owner)
        return false
    }
}
