import Archive
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
        case .string(let value): JSONEscaping.appendQuoted(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.appendJSON(to: &text, tagged: tagged)
            }
            text += "]"
        case .object(let values):
            if tagged && Self.looksTagged(values) {
                // An object of one key that is a tag's: inside an `$object` tag (see `encode(to:)`).
                text += "{\"$object\":"
                Self.appendObject(values, to: &text, tagged: tagged)
                text += "}"
            } else {
                Self.appendObject(values, to: &text, tagged: tagged)
            }
        case .unrepresentable(let type):
            if tagged {
                text += "{\"$unrepresentable\":"
                JSONEscaping.appendQuoted(type, to: &text)
                text += "}"
            } else {
                text += "<\(type)>"
            }
        case .redacted:
            text += tagged ? "{\"$redacted\":true}" : "<redacted>"
        }
    }

    /// Appends `values` as a JSON object, keys sorted.
    private static func appendObject(_ values: [String: JournalValue], to text: inout String, tagged: Bool) {
        text += "{"
        for (index, (key, value)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { text += "," }
            JSONEscaping.appendQuoted(key, to: &text)
            text += ":"
            value.appendJSON(to: &text, tagged: tagged)
        }
        text += "}"
    }
}
