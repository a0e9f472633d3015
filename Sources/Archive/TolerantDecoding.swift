import Foundation

/// Decodes an archive written by another shape of a type: every property that still fits is
/// restored, the others take their default values.
enum TolerantDecoding {
    /// - Returns: the value and the dotted paths that took their defaults, or nil when the bytes
    ///   are not JSON at all.
    static func decode<T: Codable>(_ type: T.Type, from data: Data, defaultValue: T) -> (T, [String])? {
        guard let archived = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let defaultData = try? JSONEncoder().encode(defaultValue),
            let defaults = try? JSONSerialization.jsonObject(with: defaultData, options: [.fragmentsAllowed])
        else { return nil }
        var defaulted: [String] = []
        var merged = merge(defaults: defaults, archived: archived, path: "", defaulted: &defaulted)
        for _ in 0..<64 {
            guard let mergedData = try? JSONSerialization.data(withJSONObject: merged, options: [.fragmentsAllowed])
            else {
                break
            }
            do {
                return (try JSONDecoder().decode(T.self, from: mergedData), defaulted.sorted())
            } catch let error as DecodingError {
                guard let path = failingPath(error), !path.isEmpty else { break }
                defaulted.append(path.joined(separator: "."))
                merged = replace(in: merged, at: path[...], from: defaults)
            } catch {
                break
            }
        }
        return (defaultValue, ["(everything)"])
    }

    private enum Kind { case object, array, string, number, null }

    private static func kind(_ value: Any) -> Kind {
        switch value {
        case is [String: Any]: .object
        case is [Any]: .array
        case is String: .string
        case is NSNull: .null
        default: .number
        }
    }

    /// The default tree, overlaid with every archived value of the same kind.
    private static func merge(defaults: Any, archived: Any, path: String, defaulted: inout [String]) -> Any {
        switch (defaults, archived) {
        case (let d as [String: Any], let a as [String: Any]):
            var result = d
            for (key, value) in a {
                let childPath = path.isEmpty ? key : path + "." + key
                if let defaultChild = d[key] {
                    result[key] = merge(defaults: defaultChild, archived: value, path: childPath, defaulted: &defaulted)
                } else {
                    // Not in the defaults: an optional that is nil by default, or a removed property.
                    // Keep it; the decoder ignores unknown keys and reports misfits.
                    result[key] = value
                }
            }
            return result
        default:
            let defaultKind = kind(defaults)
            if defaultKind == .null || defaultKind == kind(archived) { return archived }
            defaulted.append(path)
            return defaults
        }
    }

    private static func failingPath(_ error: DecodingError) -> [String]? {
        let context: DecodingError.Context
        var path: [String]
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            context = c
            path = c.codingPath.map(\.stringValue)
        case .keyNotFound(let key, let c):
            context = c
            path = c.codingPath.map(\.stringValue) + [key.stringValue]
        @unknown default:
            return nil
        }
        _ = context
        // Array indices cannot be defaulted one by one: default the whole array.
        if let index = path.firstIndex(where: { Int($0) != nil }) { path = Array(path[..<index]) }
        return path
    }

    /// `tree` with the value at `path` replaced by the default's (or removed when the default has none).
    private static func replace(in tree: Any, at path: ArraySlice<String>, from defaults: Any?) -> Any {
        guard let key = path.first else { return defaults ?? NSNull() }
        guard var object = tree as? [String: Any] else { return defaults ?? tree }
        let defaultObject = defaults as? [String: Any]
        if path.count == 1 {
            object[key] = defaultObject?[key]
        } else {
            object[key] = replace(in: object[key] ?? [String: Any](), at: path.dropFirst(), from: defaultObject?[key])
        }
        return object
    }
}
