import Archive
import FlaskTestSupport
import Foundation

/// Decodes what `store` holds under `key` as `T`, or nil.
func stored<T: Decodable>(_ type: T.Type, _ store: any ArchiveStore, _ key: String) -> T? {
    guard let data = try? store.data(forKey: key) else { return nil }
    return try? JSONDecoder().decode(T.self, from: data)
}
