import Foundation

/// A collection that ``TreeDecoder`` decodes element by element: an element that does not decode
/// is left out (or, in a dictionary, takes the default's value for its key), and the others are
/// kept.
protocol LossyDecodable {
    static func decodeLossily(from decoder: TreeDecoder) throws -> Self
}

extension Array: LossyDecodable where Element: Decodable {
    static func decodeLossily(from decoder: TreeDecoder) throws -> [Element] {
        guard case .array(let elements) = decoder.value else { throw decoder.mismatch(self, decoder.value) }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let key = TreeKey(index: index)
            let mark = decoder.notes.mark
            do {
                result.append(try decoder.child(key: key, value: element, defaults: nil).decode(Element.self))
            } catch {
                decoder.notes.rewind(to: mark)
                decoder.notes.add(
                    decoder.codingPath + [key], leftOut: true, reason: ArchiveErrorReason.describe(error))
            }
        }
        return result
    }
}

/// A dictionary whose keys are written as the keys of a JSON object (`String` and `Int` keys, and
/// any `CodingKeyRepresentable` key, as `Dictionary`'s own encoding writes them).
extension Dictionary: LossyDecodable where Key: CodingKeyRepresentable, Value: Decodable {
    static func decodeLossily(from decoder: TreeDecoder) throws -> [Key: Value] {
        guard case .object(let entries) = decoder.value else { throw decoder.mismatch(self, decoder.value) }
        var defaults: [String: JSONTree]?
        if case .object(let defaultEntries) = decoder.defaults { defaults = defaultEntries }
        var result: [Key: Value] = [:]
        result.reserveCapacity(entries.count)
        for (key, entry) in entries {
            let codingKey = TreeKey(dictionaryKey: key)
            let mark = decoder.notes.mark
            do {
                guard let typedKey = Key(codingKey: codingKey) else {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: decoder.codingPath + [codingKey], debugDescription: "not a key of \(Key.self)"))
                }
                result[typedKey] = try decoder.decode(
                    Value.self, key: codingKey, value: entry, fallback: defaults?[key])
            } catch {
                decoder.notes.rewind(to: mark)
                decoder.notes.add(
                    decoder.codingPath + [codingKey], leftOut: true, reason: ArchiveErrorReason.describe(error))
            }
        }
        return result
    }
}
