import Foundation
import Testing

@testable import Archive

@Suite("Archive restore: what the notes say")
struct TolerantDecodingNotesTests {
    struct Before: Codable { var name = "n" }
    struct After: Codable, Equatable {
        var name = "default"
        var count = 0
    }

    @Test("a value missing from the archive is noted with its path")
    func missingNamesItsPath() throws {
        let data = try JSONEncoder().encode(Before(name: "kept"))
        guard
            case .restored(let value, let notes) = TolerantDecoding.decode(
                After.self, from: data, defaultValue: After())
        else {
            Issue.record("not restored")
            return
        }
        #expect(value == After(name: "kept", count: 0))
        #expect(notes == [TolerantDecoding.Note(path: "count", leftOut: false, reason: "missing at count")])
    }
}
