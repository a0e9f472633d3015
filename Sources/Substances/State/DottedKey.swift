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
        guard key.utf8.contains(UInt8(ascii: "\\")) else {
            return key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
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
