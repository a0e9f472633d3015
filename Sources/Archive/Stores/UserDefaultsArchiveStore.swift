import Foundation

/// Stores archives in `UserDefaults`, the seed's default and the default store on Apple platforms.
///
/// A value of another kind that the app stored under an archive key (a string, a dictionary) is
/// reported as ``ArchiveForeignValueError`` and copied aside as it is, never overwritten unseen.
///
/// On Apple platforms the system writes the defaults to disk. Elsewhere Foundation's `UserDefaults`
/// writes only when asked, so this store calls `synchronize()` after every change there; the
/// default store on those platforms is a ``FileArchiveStore`` (see `docs/archiving.md`).
public struct UserDefaultsArchiveStore: ArchiveStore {
    /// The suite, or nil for `UserDefaults.standard`.
    public let suiteName: String?

    /// A store in the standard user defaults, or in the suite named `suiteName`.
    public init(suiteName: String? = nil) {
        self.suiteName = suiteName
    }

    private var defaults: UserDefaults {
        suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
    }

    /// The data under `key`; a foreign value there is an error (it is kept, and reported).
    public func data(forKey key: String) throws -> Data? {
        guard let object = defaults.object(forKey: key) else { return nil }
        guard let data = object as? Data else {
            throw ArchiveForeignValueError(typeName: UserDefaultsArchiveStore.kind(of: object))
        }
        return data
    }

    /// Stores `data` under `key` (on Linux, written to disk at once).
    public func set(_ data: Data, forKey key: String) throws {
        let defaults = defaults
        defaults.set(data, forKey: key)
        persist(defaults)
    }

    /// Removes what is stored under `key`.
    public func removeData(forKey key: String) throws {
        let defaults = defaults
        defaults.removeObject(forKey: key)
        persist(defaults)
    }

    /// Copies the value under `key`, whatever its type, to `destination`.
    public func copyValue(forKey key: String, to destination: String) throws {
        let defaults = defaults
        guard let object = defaults.object(forKey: key) else { return }
        defaults.set(object, forKey: destination)
        persist(defaults)
    }

    private func persist(_ defaults: UserDefaults) {
        #if !canImport(Darwin)
            defaults.synchronize()
        #endif
    }

    /// The property-list kind of `object`, by name.
    private static func kind(of object: Any) -> String {
        switch object {
        case is String: "String"
        case is [String: Any]: "Dictionary"
        case is [Any]: "Array"
        case is Date: "Date"
        case is NSNumber: "Number"
        default: "\(type(of: object))"
        }
    }
}
