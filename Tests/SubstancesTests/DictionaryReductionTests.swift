import FlaskTestSupport
import FluxBus
import Foundation
import Testing

@testable import Substances

// Dictionaries of values of every layout the entry-by-entry comparison meets: words (an Int, a
// struct with padding and a `_` property), half words, bytes, a stride too large for a stand-in,
// enums with payloads, nested dictionaries, optionals.

struct DItem: Codable, Equatable {
    var flag = false  // seven bytes of padding follow
    var count = 0
    var name = ""
    var _cache = 0
}

/// 17 words: a stride no stand-in covers (the generic scan).
struct DBig: Codable, Equatable {
    var a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0, i = 0
    var j = 0, k = 0, l = 0, m = 0, n = 0, o = 0, p = 0, q = 0
}

/// Three bytes.
struct DBytes: Codable, Equatable {
    var a: UInt8 = 0
    var b: UInt8 = 0
    var c: UInt8 = 0
}

/// Half words: alignment 4, stride 8.
struct DHalves: Codable, Equatable {
    var a: Int32 = 0
    var b: Float = 0
}

enum DChoice: Codable, Equatable {
    case none
    case number(Int)
    case text(String)
}

struct DictionaryState: State {
    var ints: [String: Int] = [:]
    var items: [String: DItem] = [:]
    var nested: [String: [String: Int]] = [:]
    var bigs: [String: DBig] = [:]
    var bytes: [String: DBytes] = [:]
    var halves: [String: DHalves] = [:]
    var choices: [String: DChoice] = [:]
    var doubles: [String: Double] = [:]
    var flags: [String: Bool] = [:]
    var maybe: [String: Int]?
    var optionals: [String: Int?] = [:]
    var count = 0
}

@Suite("Change reduction: dictionaries entry by entry")
struct DictionaryReductionTests {
    static let keys = ["a", "b", "c.d", "_e", "f", "k10", "k11", "k12"]

    /// Changes `state` at one to three random places: an entry set, added or removed, a dictionary
    /// replaced, an optional dictionary set or cleared.
    static func mutate(_ state: inout DictionaryState, _ random: inout SeededRandom) {
        func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }
        func key() -> String { pick(keys) }
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<14, using: &random) {
            case 0: state.ints[key()] = pick([nil, 0, 1, 2])
            case 1:
                var item = state.items[key()] ?? DItem()
                switch Int.random(in: 0..<4, using: &random) {
                case 0: item.flag.toggle()
                case 1: item.count = pick([0, 1])
                case 2: item.name = pick(["", "n", "a long name that is stored out of line"])
                default: item._cache += 1  // not data: flattens alike
                }
                state.items[key()] = pick([item, item, nil])
            case 2: state.nested[key(), default: [:]][key()] = pick([nil, 1, 2])
            case 3:
                var big = state.bigs[key()] ?? DBig()
                big.q = pick([0, 1])
                state.bigs[key()] = pick([big, nil])
            case 4: state.bytes[key()] = pick([nil, DBytes(), DBytes(a: 1, b: 2, c: 3)])
            case 5: state.halves[key()] = pick([nil, DHalves(), DHalves(a: 1, b: -0.0), DHalves(a: 0, b: 2)])
            case 6: state.choices[key()] = pick([nil, DChoice.none, .number(1), .number(2), .text("t")])
            case 7: state.doubles[key()] = pick([nil, 0.0, -0.0, 1.5])
            case 8: state.flags[key()] = pick([nil, true, false])
            case 9: state.maybe = pick([nil, [:], ["a": 1]])
            case 10: state.maybe?[key()] = pick([nil, 1, 2])
            case 11: state.optionals[key()] = pick([.none, .some(nil), .some(1)])
            case 12:
                // A dictionary rebuilt: other storage, maybe the same entries.
                state.ints = Dictionary(uniqueKeysWithValues: state.ints.map { ($0.key, $0.value) })
            default:
                // Many entries, so that the scan walks more than a bucket or two.
                for index in 0..<Int.random(in: 0...60, using: &random) { state.ints["k\(index)"] = index % 3 }
            }
        }
    }

    /// A value as text, a dictionary's entries in the order of their keys.
    static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let dictionary = value as? [String: Any] {
            return "[" + dictionary.keys.sorted().map { "\($0): \(describe(dictionary[$0]))" }.joined(separator: ", ")
                + "]"
        }
        return String(describing: value)
    }

    /// How the changes `found` differ from the `expected` ones: their keys, then the old and new
    /// values of the entries' (dotted) keys as `describe` writes them; nil when they agree. (A
    /// property's own change may carry its typed value on one path and its flattening on the
    /// other, so only the entries' values are compared: they are flattened on every path.)
    static func difference(
        _ found: SubstanceChanges?, _ expected: SubstanceChanges?, describe: (Any?) -> String = describe
    ) -> String? {
        let foundKeys = Set(found?.keys ?? [])
        let expectedKeys = Set(expected?.keys ?? [])
        if foundKeys != expectedKeys {
            return
                "missing \(expectedKeys.subtracting(foundKeys).sorted()), extra \(foundKeys.subtracting(expectedKeys).sorted())"
        }
        for key in expectedKeys.sorted() where key.contains(".") {
            let a = found?.change(key)
            let b = expected?.change(key)
            let values = (describe(a?.oldValue()), describe(a?.newValue()))
            let reference = (describe(b?.oldValue()), describe(b?.newValue()))
            if values != reference { return "\(key): \(values) where the reference has \(reference)" }
        }
        return nil
    }

    @Test("both reduction paths find the same keys and values: the entry-by-entry one and the whole flattening")
    func againstFlattening() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        let substance = Substance<DictionaryState>(bus: Flux())
        let layout = ReductionPlan(for: DictionaryState.self)
        let codable = ReductionPlan(for: DictionaryState.self, forceCodablePath: true)
        #expect(!layout.usesCodablePath)
        var state = DictionaryState()
        var mismatches = 0
        var changedCases = 0
        for index in 0..<5_000 {
            let old = state
            // Mostly a copy changed in place (the entries share their bits); sometimes a state made
            // anew.
            if index % 10 == 9 { state = DictionaryState() }
            DictionaryReductionTests.mutate(&state, &random)
            let new = state
            let found = StateReducer.reduce(old, new, plan: layout, reference: substance.reference)
            let expected = StateReducer.reduce(old, new, plan: codable, reference: substance.reference)
            if !(expected?.keys ?? []).isEmpty { changedCases += 1 }
            if let difference = Self.difference(found, expected) {
                mismatches += 1
                if mismatches <= 3 { Issue.record("case \(index) of seed \(seed): \(difference)") }
            }
        }
        #expect(mismatches == 0, "seed \(seed)")
        #expect(changedCases > 2_500, "the generator produces changes")
    }

    @Test(
        "one changed entry of a dictionary is the one entry compared as a value, whatever the dictionary's size",
        arguments: [10, 1_000, 100_000])
    func oneCandidate(size: Int) throws {
        let old = Dictionary(uniqueKeysWithValues: (0..<size).map { ("k\($0)", DItem(count: $0)) })
        var new = old
        new["k\(size / 2)"]?.name = "changed"
        let significant = SignificantBytes.of(DItem.self)
        let scan = try #require(DictionaryWords.standInScanner(of: DItem.self, significant: significant))
        let candidates = StateMemory.withMemory(of: old) { a in StateMemory.withMemory(of: new) { b in scan(a, b) } }
        #expect(candidates == ["k\(size / 2)"])
        #expect(DictionaryWords.candidates(old, new, significant) == ["k\(size / 2)"])
        // An added and a removed entry are candidates too.
        var other = new
        other["added"] = DItem()
        other["k0"] = nil
        let changed = StateMemory.withMemory(of: new) { a in StateMemory.withMemory(of: other) { b in scan(a, b) } }
        #expect(Set(changed) == ["added", "k0"])
    }

    @Test("a NaN entry kept as it was is no change, as a NaN property is not (the flattening called it one)")
    func nanKept() throws {
        let substance = Substance<DictionaryState>(bus: Flux())
        let plan = ReductionPlan(for: DictionaryState.self)
        var old = DictionaryState()
        old.doubles = ["x": .nan, "y": 1]
        old.halves = ["h": DHalves(a: 0, b: .nan)]
        var new = old
        new.doubles["y"] = 2
        new.halves["i"] = DHalves()
        let changes = try #require(StateReducer.reduce(old, new, plan: plan, reference: substance.reference))
        #expect(Set(changes.keys) == ["doubles", "doubles.y", "halves", "halves.i", "halves.i.a", "halves.i.b"])
    }

    @Test("a value's padding is not compared: a copy made field by field compares as the same value")
    func paddingIgnored() {
        let significant = SignificantBytes.of(DItem.self)
        // Bytes 1 to 7 of a DItem are padding: fill two copies' with different bytes.
        var a = DItem(flag: true, count: 3, name: "x")
        var b = a
        withUnsafeMutableBytes(of: &a) { $0[1] = 0xAA }
        withUnsafeMutableBytes(of: &b) { $0[1] = 0x55 }
        #expect(significant.same(a, b))
        b.count = 4
        #expect(!significant.same(a, b))
    }

    struct Numbered: Equatable, Codable {
        var byNumber: [Int: String] = [:]
        var count = 0
    }

    struct NumberedState: State {
        var byNumber: [Int: String] = [:]
        var inner = Numbered()
    }

    @Test("a dictionary with keys other than strings is compared whole, at the top and inside a struct")
    func nonStringKeys() throws {
        // Its stored properties are all internals (`_variant`): the plan once descended into it,
        // found nothing to compare, and its changes were never reported.
        let substance = Substance<NumberedState>(bus: Flux())
        let plan = ReductionPlan(for: NumberedState.self)
        let old = NumberedState()
        var new = old
        new.byNumber[1] = "one"
        var changes = try #require(StateReducer.reduce(old, new, plan: plan, reference: substance.reference))
        #expect(Set(changes.keys) == ["byNumber"])
        new = old
        new.inner.byNumber[2] = "two"
        changes = try #require(StateReducer.reduce(old, new, plan: plan, reference: substance.reference))
        #expect(Set(changes.keys) == ["inner", "inner.byNumber"])
    }
}
