// The one file that uses the standard library's reflection SPI. Everything it cannot describe
// falls back to the Codable path of the reduction (see ReductionPlan).
@_spi(Reflection) import Swift

/// A stored property of a struct: its name, byte offset and type.
struct StoredField {
    let name: String
    let offset: Int
    let type: any Any.Type
    let isStruct: Bool

    /// Whether it is a property the reduction reports: not `_`-prefixed (internal state), not a
    /// property wrapper's storage (`$`).
    var isProperty: Bool { !name.hasPrefix("_") && !name.contains("$") }

    /// Whether it is internal state: `_`-prefixed, and no lazy property's storage (`$`). A
    /// property wrapper's storage (`_value` of `@Wrapper var value`) counts too: a state with one
    /// does not match its encoding's shape, and takes the Codable path, where none is looked at.
    var isInternal: Bool { name.hasPrefix("_") && !name.contains("$") }
}

enum FieldLayout {
    /// The stored properties of `type` in declaration order, or nil when the runtime cannot
    /// describe them (then the caller uses the Codable path).
    static func storedFields(of type: any Any.Type) -> [StoredField]? {
        var fields: [StoredField] = []
        let described = _forEachField(of: type, options: []) { name, offset, fieldType, kind in
            fields.append(
                StoredField(name: String(cString: name), offset: offset, type: fieldType, isStruct: kind == .struct))
            return true
        }
        return described ? fields : nil
    }
}
