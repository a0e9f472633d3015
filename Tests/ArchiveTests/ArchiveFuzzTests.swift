import Archive
import FlaskTestSupport
import FlaskTesting
import Foundation
import Testing

/// A richer archived type for the fuzz test: optionals, arrays, dictionaries, nesting, numbers.
struct Profile: Codable, Equatable {
    var id = 0
    var name = "anonymous"
    var score = 0.5
    var nickname: String?
    var tags: [String] = []
    var limits: [String: Int] = [:]
    var settings = Settings()
    var history: [Settings.Nested] = []
}

@Suite("Archive decoding fuzz: random, truncated and mutated archives")
struct ArchiveFuzzTests {
    /// 3,000 inputs in CI, 100,000 with FLASK_LONG=1.
    static var inputCount: Int { ProcessInfo.processInfo.environment["FLASK_LONG"] == nil ? 3_000 : 100_000 }

    static func validArchive(_ random: inout SeededRandom) -> Data {
        var profile = Profile()
        profile.id = Int.random(in: -1_000...1_000, using: &random)
        profile.name = ["ada", "", "ü∑ 🎉", "quote\"d"].randomElement(using: &random)!
        profile.nickname = Bool.random(using: &random) ? "nick" : nil
        profile.tags = (0..<Int.random(in: 0...4, using: &random)).map { "t\($0)" }
        profile.limits = ["a": 1, "b": Int.random(in: 0...9, using: &random)]
        profile.settings.volume = Int.random(in: 0...10, using: &random)
        profile.history = (0..<Int.random(in: 0...3, using: &random)).map { _ in Settings.Nested() }
        return try! JSONEncoder().encode(profile)
    }

    /// One hostile input: random bytes, a truncation, byte mutations, a value of another type
    /// spliced in, or deep nesting.
    static func input(_ random: inout SeededRandom) -> Data {
        var bytes = [UInt8](validArchive(&random))
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            return Data(
                (0..<Int.random(in: 0...256, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 1:
            return Data(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
        case 2:
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            return Data(bytes)
        case 3:
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                if Bool.random(using: &random) {
                    bytes.remove(at: index)
                } else {
                    bytes.insert(Array(#"{}[]",:0"tn"#.utf8).randomElement(using: &random)!, at: index)
                }
                if bytes.isEmpty { break }
            }
            return Data(bytes)
        case 4:
            // A property of another type: still JSON, another shape.
            let replacements = [#""text""#, "12", "null", "[1,2]", #"{"x":1}"#, "true", "1e400", "-0.0"]
            var text = String(decoding: bytes, as: UTF8.self)
            let keys = [
                "\"id\":", "\"name\":", "\"score\":", "\"tags\":", "\"settings\":", "\"volume\":", "\"limits\":",
            ]
            if let key = keys.randomElement(using: &random), let range = text.range(of: key) {
                text.insert(contentsOf: replacements.randomElement(using: &random)! + ",\"was\":", at: range.upperBound)
            }
            return Data(text.utf8)
        default:
            let depth = Int.random(in: 1...20_000, using: &random)
            return Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
    }

    @Test("no input crashes; each restores cleanly, restores what fits, or restores defaults with its bytes kept")
    func fuzz() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        var outcomes = (clean: 0, partial: 0, unreadable: 0)
        for index in 0..<ArchiveFuzzTests.inputCount {
            let bytes = ArchiveFuzzTests.input(&random)
            try store.set(bytes, forKey: "k")
            let restored = archiver.restore(Profile.self, key: "k", defaultValue: Profile())
            let context = Comment(rawValue: "input \(index) of seed \(seed)")
            switch restored.problems.first?.kind {
            case nil:
                outcomes.clean += 1
                #expect(restored.value == (try JSONDecoder().decode(Profile.self, from: bytes)), context)
            case .partiallyRestored(_, let keptAt)?:
                outcomes.partial += 1
                #expect(try store.data(forKey: keptAt) == bytes, context)
                try store.removeData(forKey: keptAt)
            case .unreadable(let keptAt)?:
                outcomes.unreadable += 1
                #expect(restored.value == Profile(), context)
                #expect(try store.data(forKey: keptAt) == bytes, context)
                try store.removeData(forKey: keptAt)
            case .storeFailed?, .encodingFailed?, .keyInUse?, .ownershipLost?, .notApplied?:
                Issue.record(
                    "a restore of bytes from a memory store, without an owner: \(restored.problems); \(context)")
            }
            #expect(restored.problems.count <= 1, context)
        }
        // The generator reaches all three outcomes.
        #expect(outcomes.clean > 0 && outcomes.partial > 0 && outcomes.unreadable > 0, "\(outcomes)")
    }
}
