import Foundation

/// A value being encoded, as the containers build it.
enum EncodedValue {
    case null
    case bool(Bool)
    /// The number's JSON text.
    case number(String)
    case string(String)
    case object(EncodedObject)
    case array(EncodedArray)
    /// What a `superEncoder()` encodes, read when the whole value is written.
    case deferred(ValueEncoder)
}

/// An object being encoded: keys in the order first encoded; encoding a key again replaces its value.
final class EncodedObject {
    private(set) var keys: [String] = []
    private(set) var values: [EncodedValue] = []
    /// Built once the object has a few keys, so that large dictionaries stay linear.
    private var positions: [String: Int]?

    func set(_ value: EncodedValue, forKey key: String) {
        if let index = position(of: key) {
            values[index] = value
            return
        }
        keys.append(key)
        values.append(value)
        positions?[key] = keys.count - 1
        if positions == nil, keys.count > 16 {
            positions = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { $1 })
        }
    }

    subscript(key: String) -> EncodedValue? {
        position(of: key).map { values[$0] }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }
}

/// An array being encoded.
final class EncodedArray {
    var values: [EncodedValue] = []
}
