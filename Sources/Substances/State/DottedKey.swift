/// Dotted keys (`info.nest.foo`) and the dictionary keys inside them.
///
/// A dictionary key (of a `FlaskDictRef`) may itself contain a dot: in a dotted key it is written
/// with the dot escaped by a backslash (`"a.b"` is `a\.b`, and a backslash is `\\`), so that it
/// can never be mistaken for the nested path `a` → `b`.
public enum DottedKey {
    /// The key one component stands for in a dotted key: dots and backslashes escaped.
    public static func escape(_ component: String) -> String {
        guard component.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") }) else {
            return component
        }
        var escaped = ""
        for character in component {
            if character == "." || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// Whether `key` is below `parent` (`info.counter` below `info`, not `information`).
    public static func isKey(_ key: String, below parent: String) -> Bool {
        key.utf8.count > parent.utf8.count && key.utf8.starts(with: parent.utf8)
            && key.utf8.dropFirst(parent.utf8.count).first == UInt8(ascii: ".")
    }

    /// The components of a dotted key, escapes undone.
    public static func components(of key: String) -> [String] {
        // One pass over the bytes: most keys have no backslash, many no dot, and a full journal
        // splits a key per dropped entry (`split` cost more than the rest of the fold: the figure
        // is in docs/performance.md).
        var dot = false
        for byte in key.utf8 {
            if byte == UInt8(ascii: "\\") { return escapedComponents(of: key) }
            if byte == UInt8(ascii: ".") { dot = true }
        }
        guard dot else { return [key] }
        var components: [String] = []
        let utf8 = key.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: ".") {
                components.append(String(decoding: utf8[start..<index], as: UTF8.self))
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        components.append(String(decoding: utf8[start...], as: UTF8.self))
        return components
    }

    /// The components of a dotted key with escapes in it, escapes undone.
    private static func escapedComponents(of key: String) -> [String] {
        var components: [String] = []
        var current = ""
        var escaping = false
        for character in key {
            if escaping {
                current.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        components.append(current)
        return components
    }
}
