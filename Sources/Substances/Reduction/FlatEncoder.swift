/// An `Encoder` that flattens any `Encodable` value to a ``FlatValue`` tree through its own
/// `encode(to:)`, so that custom `CodingKeys` and custom encodings are honoured. ``FlaskRef``
/// values become `.ref` (identity), not their archived `nil`. The `_`-prefixed properties of
/// structs are left out (internal state); a dictionary's keys are data, and all kept.
package struct FlatEncoder {
    package static func flatten(_ value: some Encodable) -> FlatValue {
        if let reference = value as? any ObjectReferencing {
            return reference.flatValue
        }
        if let dict = value as? FlaskDictRef {
            return .keyed(dict.storage)
        }
        let node = FlatNode()
        node.holdsData = value is any KeyedByContent
        let encoder = FlatNodeEncoder(node: node, codingPath: [])
        do {
            try value.encode(to: encoder)
        } catch {
            return .null
        }
        return node.value
    }
}
