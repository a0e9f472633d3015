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
    @Test("the archive's own errors are described by their own text, which holds no value; others by type and code")
    func ownErrorsDescribed() {
        let owned = ArchiveErrorReason.describe(ArchiveKeyOwnedError(key: "k", ownerProcess: 4242))
        #expect(owned.contains("process 4242"), "\(owned)")
        let damaged = ArchiveErrorReason.describe(ArchiveLogDamagedError(key: "k", line: 7))
        #expect(damaged.contains("the log of k is damaged at line 7"), "\(damaged)")
        let parse = ArchiveErrorReason.describe(JSONTreeError(offset: 12, problem: "an unexpected byte"))
        #expect(parse == "not JSON: an unexpected byte at byte 12")
        struct Foreign: Error {}
        #expect(ArchiveErrorReason.describe(Foreign()).hasPrefix("Foreign ("))
    }
}
