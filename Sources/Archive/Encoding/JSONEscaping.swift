/// How the package writes a string as JSON: the one escaper of the archives and of the tools' JSON
/// (a journal's lines, its timeline page).
///
/// Escaped: the quote and the backslash, every control character (`\n`, `\r` and `\t` by name, the
/// others as `\u00XX`), and the characters that readers other than a JSON parser take for line
/// ends: NEL (U+0085), the line and paragraph separators (U+2028, U+2029), as `\u0085`, `\u2028`,
/// `\u2029`. Any JSON reader reads the escapes back as the same characters; a line-oriented one
/// (JSON lines, a script embedded in a page) no longer splits a string in two.
public enum JSONEscaping {
    /// Whether `string` has a character to escape. U+0085 is C2 85 in UTF-8, U+2028 and U+2029 are
    /// E2 80 A8 and A9: a C2 or E2 byte is a candidate, checked when the string is written.
    public static func needsEscaping(_ string: String) -> Bool {
        string.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xC2 || $0 == 0xE2 }
    }

    /// Appends `string` to `bytes` as a JSON string, quotes included.
    public static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        guard needsEscaping(string) else {
            bytes.append(contentsOf: string.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        let utf8 = string.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20: appendUnicodeEscape(UInt32(byte), to: &bytes)
            case 0xC2 where index != utf8.endIndex && utf8[index] == 0x85:
                // NEL, U+0085: its second byte is read here.
                index = utf8.index(after: index)
                appendUnicodeEscape(0x85, to: &bytes)
            case 0xE2:
                // U+2028 or U+2029 (E2 80 A8, E2 80 A9): its second and third bytes are read here.
                if let last = lineOrParagraphSeparator(after: index, in: utf8) {
                    index = utf8.index(index, offsetBy: 2)
                    appendUnicodeEscape(0x2000 | UInt32(last - 0x80), to: &bytes)
                } else {
                    bytes.append(byte)
                }
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `string` to `text` as a JSON string, quotes included, escaped as for bytes.
    public static func appendQuoted(_ string: String, to text: inout String) {
        guard needsEscaping(string) else {
            text += "\""
            text += string
            text += "\""
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 16)
        appendQuoted(string, to: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// `json`, a JSON text written by an encoder that leaves U+0085, U+2028 and U+2029 as they are
    /// (Foundation's `JSONEncoder`), with those escaped: they can only stand in its strings, where
    /// an escape means the same character.
    public static func escapingLineSeparators(in json: String) -> String {
        guard json.utf8.contains(where: { $0 == 0xC2 || $0 == 0xE2 }),
            json.unicodeScalars.contains(where: isLineSeparator)
        else { return json }
        var escaped = ""
        escaped.reserveCapacity(json.utf8.count + 16)
        for scalar in json.unicodeScalars {
            if isLineSeparator(scalar) {
                var bytes: [UInt8] = []
                appendUnicodeEscape(scalar.value, to: &bytes)
                escaped += String(decoding: bytes, as: UTF8.self)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Whether `scalar` is one that readers other than a JSON parser may take for a line end,
    /// besides `\n` and `\r`: NEL (U+0085), the line and paragraph separators (U+2028, U+2029).
    private static func isLineSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\u{85}" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// The last byte of U+2028 or U+2029 (A8 or A9) when the bytes from `index` on, after an E2,
    /// continue one of them; nil otherwise.
    private static func lineOrParagraphSeparator(after index: String.UTF8View.Index, in utf8: String.UTF8View)
        -> UInt8?
    {
        guard index != utf8.endIndex, utf8[index] == 0x80 else { return nil }
        let next = utf8.index(after: index)
        guard next != utf8.endIndex, utf8[next] == 0xA8 || utf8[next] == 0xA9 else { return nil }
        return utf8[next]
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Appends `\uXXXX` for `value` (of the Basic Multilingual Plane), in lowercase hexadecimal.
    private static func appendUnicodeEscape(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"\u"#.utf8)
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(hex[Int((value >> UInt32(shift)) & 0xF)])
        }
    }
}
