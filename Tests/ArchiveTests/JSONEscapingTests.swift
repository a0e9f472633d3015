import Foundation
import Testing

@testable import Archive

@Suite("JSON strings: one escaper for the archives and the tools")
struct JSONEscapingTests {
    /// Every control character, the JSON specials, the three characters line-oriented readers split
    /// on, their UTF-8 neighbours (which must pass through), and text around them.
    static let samples: [String] =
        (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + [
            "\"", "\\", "/", "\u{7F}", "\u{85}", "\u{2028}", "\u{2029}", "\u{84}", "\u{A0}", "\u{2027}",
            "\u{202A}", "\u{20AC}", "é", "ü", "🙂", "plain", "a\u{2028}b\u{85}c\u{2029}d\n\"e\"",
            "\u{E2}\u{80}", "ends with \u{C2}", "",
        ]

    @Test("what the archive writes reads back as the same string, with JSONDecoder too", arguments: samples)
    func readsBack(string: String) throws {
        let data = try ArchiveEncoder().encode([string])
        #expect(try JSONDecoder().decode([String].self, from: data) == [string])
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || ["\u{85}", "\u{2028}", "\u{2029}"].contains($0) })
    }

    @Test("bytes and text get the same escapes: control characters by name or as \\u00XX, line separators as \\uXXXX")
    func escapes() {
        let string = "a\u{1}\t\n\r\"\\\u{85}\u{2028}\u{2029}é"
        var bytes: [UInt8] = []
        JSONEscaping.appendQuoted(string, to: &bytes)
        var text = ""
        JSONEscaping.appendQuoted(string, to: &text)
        let expected = #""a\u0001\t\n\r\"\\\u0085\u2028\u2029é""#
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(text == expected)
        #expect(JSONEscaping.escapingLineSeparators(in: "[\"\u{2028}\u{85}\u{2029}\"]") == #"["\u2028\u0085\u2029"]"#)
    }
}
