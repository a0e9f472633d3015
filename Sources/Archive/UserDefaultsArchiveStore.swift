import Foundation

/// Stores archives in `UserDefaults`, the seed's default.
public struct UserDefaultsArchiveStore: ArchiveStore {
    /// The suite, or nil for `UserDefaults.standard`.
    public let suiteName: String?

    public init(suiteName: String? = nil) {
        self.suiteName = suiteName
    }

    private var defaults: UserDefaults {
        suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
    }

    public func data(forKey key: String) throws -> Data? {
        defaults.data(forKey: key)
    }

    public func set(_ data: Data, forKey key: String) throws {
        defaults.set(data, forKey: key)
    }

    public func removeData(forKey key: String) throws {
        defaults.removeObject(forKey: key)
    }
}
