import Substances

/// JournalValue written as JSON text by hand: for people (the diff printer, the timeline's
/// rows), and tagged for the timeline page's script, quickly for a journal of many mixes.
extension JournalValue {
    /// The value as compact JSON text (`"ada"`, `[1,2]`, `{"a":1}`), as a diff printer prints it:
    /// `nil` for no value (a key that did not exist), `<redacted>` for a secret and `<Type>` for a
    /// value JSON cannot carry.
    public var json: String { self == .null ? "nil" : compactJSON }

    /// The value as compact JSON for people: keys sorted, whole doubles with their `.0`, secrets
    /// as `<redacted>` and unrepresentable values as `<Type>`.
    var compactJSON: String {
        var text = ""
        appendJSON(to: &text, tagged: false)
        return text
    }

    /// Appends the value as JSON, keys sorted. `tagged`: as the journal's `Codable` form (whole
    /// doubles, secrets and unrepresentable values as `$`-tagged objects), which reads back as the
    /// same value; otherwise as ``compactJSON``.
    func appendJSON(to text: inout String, tagged: Bool) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value):
            if value.rounded() == value || !value.isFinite {
                if tagged {
                    text += "{\"$double\":\"\(value)\"}"
                } else {
                    text += "\(value)"
                }
            } else {
                text += "\(value)"
            }
        case .string(let value): Self.appendJSONString(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.appendJSON(to: &text, tagged: tagged)
            }
            text += "]"
        case .object(let values):
            text += "{"
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.appendJSONString(key, to: &text)
                text += ":"
                values[key].unsafelyUnwrapped.appendJSON(to: &text, tagged: tagged)
            }
            text += "}"
        case .unrepresentable(let type):
            if tagged {
                text += "{\"$unrepresentable\":"
                Self.appendJSONString(type, to: &text)
                text += "}"
            } else {
                text += "<\(type)>"
            }
        case .redacted:
            text += tagged ? "{\"$redacted\":true}" : "<redacted>"
        }
    }

    /// Appends `string` as a JSON string: quotes, backslashes, control characters and the
    /// characters other readers split lines on (U+0085, U+2028, U+2029) escaped.
    static func appendJSONString(_ string: String, to text: inout String) {
        text += "\""
        // U+0085 is C2 85 in UTF-8, U+2028 and U+2029 E2 80 A8 and A9: a C2 or E2 byte is checked.
        let needsEscaping = string.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xC2 || $0 == 0xE2 }
        guard needsEscaping else {
            text += string
            text += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || isLineSeparator(scalar) {
                    text += unicodeEscape(scalar)
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }

    /// Whether `scalar` is one that JSON readers other than ours may take for a line end, besides
    /// `\n` and `\r`: NEL (U+0085), the line and paragraph separators (U+2028, U+2029).
    static func isLineSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\u{85}" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// `scalar` (of the Basic Multilingual Plane) as a JSON escape: `\u2028`.
    static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
