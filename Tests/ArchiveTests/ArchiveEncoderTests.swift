import Archive
import FlaskTestSupport
import FlaskTesting
import Foundation
import Testing

/// Every kind of value `JSONEncoder` handles specially or that nests: the encoder must write what
/// `JSONDecoder` reads back as the same value.
struct Everything: Codable, Equatable {
    enum Shape: Codable, Equatable {
        case point
        case circle(radius: Double)
        case labelled(String, Int)
    }

    class Base: Codable, Equatable {
        var base = "b"
        static func == (lhs: Base, rhs: Base) -> Bool { lhs.base == rhs.base }
    }

    final class Derived: Base {
        var extra = 2

        override init() { super.init() }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            extra = try container.decode(Int.self, forKey: .extra)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(extra, forKey: .extra)
            try super.encode(to: container.superEncoder())
        }

        private enum Key: CodingKey { case extra }
    }

    var text = "quote \" backslash \\ newline \n tab \t control \u{1} emoji 🎉 é"
    var int = Int.min
    var int8 = Int8.min
    var int16 = Int16.max
    var int32 = Int32.min
    var int64 = Int64.max
    var uint = UInt.max
    var uint8 = UInt8.max
    var uint16 = UInt16.max
    var uint32 = UInt32.max
    var uint64 = UInt64.max
    var double = 0.1
    var tiny = Double.leastNonzeroMagnitude
    var huge = 1.7976931348623157e308
    var negativeZero = -0.0
    var float: Float = 3.4028235e38
    var flag = true
    var decimal = Decimal(string: "12345678901234567890.123")!
    var date = Date(timeIntervalSinceReferenceDate: 123_456.789)
    var data = Data([0, 1, 2, 255])
    var url = URL(string: "https://example.com/a?b=c#d")!
    var none: Int? = nil
    var some: String? = "some"
    var list = [1, 2, 3]
    var nested = [[1], [], [2, 3]]
    var optionals: [Int?] = [1, nil, 3]
    var byName = ["a": 1, "b": 2]
    var byNumber = [1: "one", 2: "two"]
    var set: Set<Int> = [1, 2]
    var shapes: [Shape] = [.point, .circle(radius: 1.5), .labelled("x", 2)]
    var derived = Derived()
}

/// Arrays nested `depth` deep, as an unkeyed container in each.
struct NestedArrays: Encodable {
    let depth: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 1 { try container.encode(NestedArrays(depth: depth - 1)) }
    }
}

/// A struct `depth` levels deep, each level an object holding an array of the next.
struct Level: Codable, Sendable {
    var children: [Level] = []

    static func chain(_ depth: Int) -> Level {
        var level = Level()
        for _ in 1..<depth { level = Level(children: [level]) }
        return level
    }
}

/// A value that wraps the next in a single-value container: it recurses without nesting.
struct Wrapper: Encodable {
    let depth: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if depth > 1 { try container.encode(Wrapper(depth: depth - 1)) } else { try container.encode(0) }
    }
}

@Suite("Archive encoder: JSONEncoder's output, with a bound on depth")
struct ArchiveEncoderTests {
    @Test("what it writes, JSONDecoder reads back as the same value, and JSONEncoder writes alike")
    func roundTrip() throws {
        let value = Everything()
        let data = try ArchiveEncoder().encode(value)
        #expect(try JSONDecoder().decode(Everything.self, from: data) == value)
        let ours = try JSONSerialization.jsonObject(with: data) as? NSDictionary
        let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? NSDictionary
        #expect(ours != nil && ours == foundation)
    }

    @Test("top-level primitives and optionals are written as JSON fragments")
    func fragments() throws {
        #expect(try ArchiveEncoder().encode(42) == Data("42".utf8))
        #expect(try ArchiveEncoder().encode("x") == Data(#""x""#.utf8))
        #expect(try ArchiveEncoder().encode(Int?.none) == Data("null".utf8))
    }

    @Test(
        "non-finite numbers are written as JSONEncoder's convertToString writes them, and restored exactly",
        arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(number: Double) throws {
        struct Numbers: Codable, Equatable {
            var double: Double
            var float: Float
            var doubles: [Double]
            var optional: Double?
            var other = 1.5
        }
        let value = Numbers(double: number, float: Float(number), doubles: [1, number], optional: number)
        let data = try ArchiveEncoder().encode(value)
        let names = ArchiveEncoder.nonFiniteNames
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: names.positiveInfinity, negativeInfinity: names.negativeInfinity, nan: names.nan)
        #expect(
            try JSONSerialization.jsonObject(with: data) as? NSDictionary
                == JSONSerialization.jsonObject(with: try encoder.encode(value)) as? NSDictionary)
        // Read back by the archiver, strictly and value by value, as the same numbers.
        func same(_ restored: Numbers) {
            #expect(restored.double.bitPattern == number.bitPattern || (restored.double.isNaN && number.isNaN))
            #expect(restored.float.isNaN == number.isNaN && (number.isNaN || restored.float == Float(number)))
            #expect(restored.doubles[1].isNaN == number.isNaN && (number.isNaN || restored.doubles[1] == number))
            #expect(restored.optional.map { $0.isNaN || $0 == number } == true)
            #expect(restored.other == 1.5)
        }
        let archiver = Archiver(store: InMemoryArchiveStore())
        try archiver.write(data, key: "n")
        let fallback = Numbers(double: 0, float: 0, doubles: [], optional: nil)
        let restored = archiver.restore(Numbers.self, key: "n", defaultValue: fallback)
        #expect(restored.problems.isEmpty)
        same(restored.value)
        // Value by value (an archive of another shape, here with an extra field of the wrong type).
        var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        object["other"] = "not a number"
        try archiver.write(try JSONSerialization.data(withJSONObject: object), key: "n")
        let tolerant = archiver.restore(Numbers.self, key: "n", defaultValue: fallback)
        #expect(tolerant.problems.count == 1)
        same(
            Numbers(
                double: tolerant.value.double, float: tolerant.value.float, doubles: tolerant.value.doubles,
                optional: tolerant.value.optional, other: 1.5))
    }

    @Test("512 nested arrays are written and read back; 513 are refused")
    func nestingLimit() throws {
        let deepest = try ArchiveEncoder().encode(NestedArrays(depth: ArchiveEncoder.maximumNesting))
        #expect(try JSONSerialization.jsonObject(with: deepest) is [Any])
        #expect(throws: EncodingError.self) {
            try ArchiveEncoder().encode(NestedArrays(depth: ArchiveEncoder.maximumNesting + 1))
        }
    }

    @Test("a value 1,000 struct levels deep is refused with an error, never a crash", arguments: [1_000, 20_000])
    func deepStruct(depth: Int) {
        #expect(throws: EncodingError.self) { try ArchiveEncoder().encode(Level.chain(depth)) }
    }

    @Test("a value that recurses without nesting is refused before the stack runs out")
    func deepRecursion() {
        #expect(throws: EncodingError.self) { try ArchiveEncoder().encode(Wrapper(depth: 100_000)) }
        #expect(throws: Never.self) { try ArchiveEncoder().encode(Wrapper(depth: 1_000)) }
    }

    @Test("an archiver reports a value too deep, keeps the previous archive, and goes on")
    func archiverReportsDepth() throws {
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        try archiver.write(ArchiveEncoder().encode(Level.chain(3)), key: "k")
        let problems = Recorder<ArchiveProblem>()
        let deep = Level.chain(1_000)
        archiver.scheduleWrite(
            key: "k", after: 3_600, encode: { try ArchiveEncoder().encode(deep) }, onFailure: { problems.append($0) })
        archiver.flush()
        #expect(problems.all.map(\.kind) == [.encodingFailed])
        let reason = problems.all.first?.reason ?? ""
        #expect(reason.hasPrefix("nested deeper than 512 levels at children.0.children.…"), "\(reason)")
        #expect(problems.all.first.map { $0.description.count < 300 } == true)
        #expect(try store.data(forKey: "k") == ArchiveEncoder().encode(Level.chain(3)))
    }
}
