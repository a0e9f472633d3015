import FlaskTestSupport
import FluxBus
import Foundation
import Testing

@testable import Substances

/// The states of the property test: nested structs, optionals, arrays, dictionaries (references and
/// Swift ones), an object reference and `_` properties at every depth.
struct PInner: Codable, Equatable {
    var x = 0
    var label = ""
    var tags: [String] = []
    var maybe: Int?
    var _secret = 0
}

struct PMiddle: Codable, Equatable {
    var inner = PInner()
    var flag = false
    var _cache = PInner()
}

/// An object referenced by a `FlaskRef`.
final class RefTarget: Sendable {}

struct PropertyState: State {
    var count = 0
    var name = ""
    var ratio = 0.0
    var small: Int8 = 0
    var maybeName: String?
    var list: [Int] = []
    var middle = PMiddle()
    var dict: FlaskDictRef?
    var map: [String: Int] = [:]
    var ref = FlaskRef<RefTarget>(nil)
    var _private = 0
}

/// The reference: what changed between two states, written out by hand property by property,
/// with the rules of docs/decisions.md (parents of changed keys change too, `_` properties never do,
/// dictionaries report their keys, object references compare by identity).
enum Reference {
    static func keys(_ a: PropertyState, _ b: PropertyState) -> Set<String> {
        var keys = Set<String>()
        func check(_ changed: Bool, _ key: String) {
            if changed { keys.insert(key) }
        }
        check(a.count != b.count, "count")
        check(a.name != b.name, "name")
        // A NaN kept as it was is no change (the draws' NaN is always the same one).
        check(a.ratio != b.ratio && !(a.ratio.isNaN && b.ratio.isNaN), "ratio")
        check(a.small != b.small, "small")
        check(a.maybeName != b.maybeName, "maybeName")
        check(a.list != b.list, "list")
        let inner = innerKeys(a.middle.inner, b.middle.inner, prefix: "middle.inner")
        keys.formUnion(inner)
        check(!inner.isEmpty, "middle.inner")
        check(a.middle.flag != b.middle.flag, "middle.flag")
        check(!inner.isEmpty || a.middle.flag != b.middle.flag, "middle")
        keys.formUnion(dictionaryKeys(a.dict.map(flatten), b.dict.map(flatten), prefix: "dict"))
        keys.formUnion(
            dictionaryKeys(
                flatten(a.map.mapValues { $0 as Any }), flatten(b.map.mapValues { $0 as Any }), prefix: "map"))
        check(a.ref.object !== b.ref.object, "ref")
        return keys
    }

    static func innerKeys(_ a: PInner, _ b: PInner, prefix: String) -> Set<String> {
        var keys = Set<String>()
        if a.x != b.x { keys.insert("\(prefix).x") }
        if a.label != b.label { keys.insert("\(prefix).label") }
        if a.tags != b.tags { keys.insert("\(prefix).tags") }
        if a.maybe != b.maybe { keys.insert("\(prefix).maybe") }
        return keys
    }

    /// A dictionary as paths: a leaf's path maps to its value's description, a nested
    /// dictionary's path to "{}".
    static func flatten(_ dictionary: FlaskDictRef) -> [String: String] {
        flatten(dictionary.dictionary)
    }

    static func flatten(_ dictionary: [String: Any], prefix: String = "") -> [String: String] {
        var paths: [String: String] = [:]
        for (key, value) in dictionary {
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            if let nested = value as? [String: Any] {
                paths[path] = "{}"
                paths.merge(flatten(nested, prefix: path)) { $1 }
            } else {
                paths[path] = "\(type(of: value)):\(value)"
            }
        }
        return paths
    }

    /// A path changed when it is in one dictionary only or its leaf differs; its parents too. A
    /// dictionary that appears or disappears (nil on one side) changes its own key.
    static func dictionaryKeys(_ a: [String: String]?, _ b: [String: String]?, prefix: String) -> Set<String> {
        var keys = Set<String>()
        let old = a ?? [:]
        let new = b ?? [:]
        for path in Set(old.keys).union(new.keys) where old[path] != new[path] {
            var parts = "\(prefix).\(path)".split(separator: ".").map(String.init)
            while !parts.isEmpty {
                keys.insert(parts.joined(separator: "."))
                parts.removeLast()
            }
        }
        if (a == nil) != (b == nil) { keys.insert(prefix) }
        return keys
    }
}

@Suite("Change reduction: property test against a reference")
struct ReductionPropertyTests {
    static let objects = [RefTarget(), RefTarget()]

    /// A random state from small domains, so that many writes rewrite the same value.
    static func randomState(_ random: inout SeededRandom) -> PropertyState {
        func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }
        func maybe() -> Bool { Bool.random(using: &random) }
        var state = PropertyState()
        if maybe() { state.count = pick([0, 1, 2]) }
        if maybe() { state.name = pick(["", "a", "b"]) }
        if maybe() { state.ratio = pick([0, 0.5, -0.0, .nan]) }
        if maybe() { state.small = pick([0, -1, 127]) }
        if maybe() { state.maybeName = pick([nil, "x", ""]) }
        if maybe() { state.list = pick([[], [1], [1, 2], [2, 1]]) }
        if maybe() { state.middle.flag = true }
        if maybe() { state.middle.inner.x = pick([0, 1]) }
        if maybe() { state.middle.inner.label = pick(["", "l"]) }
        if maybe() { state.middle.inner.tags = pick([[], ["t"], ["t", "u"]]) }
        if maybe() { state.middle.inner.maybe = pick([nil, 0, 1]) }
        if maybe() { state.middle.inner._secret = pick([0, 1]) }
        if maybe() { state.middle._cache.x = pick([0, 1]) }
        if maybe() { state._private = pick([0, 1]) }
        if maybe() { state.ref = FlaskRef(pick([nil, objects[0], objects[1]])) }
        if maybe() { state.map = pick([[:], ["a": 1], ["a": 2], ["a": 1, "b": 1]]) }
        if maybe() {
            var dictionary: [String: Any] = [:]
            if maybe() { dictionary["k"] = pick([1, 2]) }
            if maybe() { dictionary["s"] = pick(["v", "w"]) }
            if maybe() {
                var nest: [String: Any] = [:]
                if maybe() { nest["deep"] = pick([1, 2]) }
                if maybe() { nest["more"] = ["leaf": pick(["p", "q"])] }
                dictionary["nest"] = nest
            }
            state.dict = FlaskDictRef(dictionary)
        }
        return state
    }

    /// A value as a handler reads it, with its type: an `Int8` is not an `Int`, a struct not a
    /// `[String: Any]`.
    static func typed(_ value: Any?) -> String {
        guard let value else { return "nil" }
        // Dictionaries by their sorted entries: two copies of one print in different orders.
        if let dictionary = value as? FlaskDictRef {
            return "FlaskDictRef(\(Reference.flatten(dictionary).sorted { $0.key < $1.key }))"
        }
        if let nested = value as? [String: Any] {
            return "[String: Any](\(Reference.flatten(nested).sorted { $0.key < $1.key }))"
        }
        if let map = value as? [String: Int] { return "[String: Int](\(map.sorted { $0.key < $1.key }))" }
        return "\(type(of: value))(\(String(reflecting: value)))"
    }

    static var caseCount: Int { ProcessInfo.processInfo.environment["FLASK_LONG"] == nil ? 10_000 : 200_000 }

    @Test("random nested states: both reduction paths find exactly the reference's keys and values")
    func againstReference() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        let substance = Substance<PropertyState>(bus: Flux())
        let layout = ReductionPlan(for: PropertyState.self)
        let codable = ReductionPlan(for: PropertyState.self, forceCodablePath: true)
        #expect(!layout.usesCodablePath)
        var mismatches = 0
        var valueMismatches = 0
        var changedCases = 0
        for index in 0..<ReductionPropertyTests.caseCount {
            let old = ReductionPropertyTests.randomState(&random)
            let new = ReductionPropertyTests.randomState(&random)
            let expected = Reference.keys(old, new)
            if !expected.isEmpty { changedCases += 1 }
            var valuesByPath: [[String: String]] = []
            for plan in [layout, codable] {
                let changes = StateReducer.reduce(old, new, plan: plan, reference: substance.reference)
                // Every changed key's values as a handler reads them, typed: the same on both paths.
                var values: [String: String] = [:]
                // (`ref` aside: a `FlaskRef` property reads as the `FlaskRef` on the layout path and
                // as its object on the Codable path, as it always has: docs/decisions.md.)
                for key in changes?.keys ?? [] where key != "ref" {
                    let change = try #require(changes?.change(key))
                    values[key] =
                        "\(ReductionPropertyTests.typed(change.oldValue())) -> \(ReductionPropertyTests.typed(change.newValue()))"
                }
                valuesByPath.append(values)
                let found = Set(changes?.keys ?? [])
                guard found == expected else {
                    mismatches += 1
                    if mismatches <= 3 {
                        Issue.record(
                            """
                            case \(index) of seed \(seed), \(plan.usesCodablePath ? "Codable" : "layout") path:
                            missing \(expected.subtracting(found).sorted()), extra \(found.subtracting(expected).sorted())
                            """)
                    }
                    continue
                }
                // Values, for the keys whose values are plain.
                if let change = changes?.change("count") {
                    #expect(change.oldValue() as Int? == old.count && change.newValue() as Int? == new.count)
                }
                if let change = changes?.change("maybeName") {
                    #expect(change.oldValue() as String? == old.maybeName)
                    #expect(change.newValue() as String? == new.maybeName)
                }
                if let change = changes?.change("middle.inner.tags") {
                    let tags: [String]? = change.newValue()
                    #expect(tags == new.middle.inner.tags)
                }
                // Below a dictionary: each entry's values are the state's own (the keys of both
                // paths are found by flattening, so compared with the states, not with each other).
                for key in (changes?.keys ?? []) where key.hasPrefix("map.") {
                    let entry = String(key.dropFirst(4))
                    let change = try #require(changes?.change(key))
                    #expect(change.oldValue() as Int? == old.map[entry] && change.newValue() as Int? == new.map[entry])
                }
                for key in (changes?.keys ?? []) where key.hasPrefix("dict.") {
                    let change = try #require(changes?.change(key))
                    let path = String(key.dropFirst(5))
                    #expect(
                        ReductionPropertyTests.typed(change.newValue())
                            == ReductionPropertyTests.typed(new.dict?[path]),
                        "\(key)")
                }
                if let change = changes?.change("small") {
                    #expect(change.oldValue() as Int8? == old.small && change.newValue() as Int8? == new.small)
                }
                if let change = changes?.change("middle") {
                    #expect(change.oldValue() as PMiddle? == old.middle && change.newValue() as PMiddle? == new.middle)
                }
            }
            if valuesByPath.count == 2, valuesByPath[0] != valuesByPath[1] {
                valueMismatches += 1
                if valueMismatches <= 3 {
                    let keys = Set(valuesByPath[0].keys).union(valuesByPath[1].keys).sorted()
                    let differing = keys.filter { valuesByPath[0][$0] != valuesByPath[1][$0] }.map {
                        "\($0): layout \(valuesByPath[0][$0] ?? "-"), Codable \(valuesByPath[1][$0] ?? "-")"
                    }
                    Issue.record("case \(index) of seed \(seed): values differ: \(differing)")
                }
            }
        }
        #expect(mismatches == 0, "seed \(seed)")
        #expect(valueMismatches == 0, "seed \(seed)")
        #expect(changedCases > ReductionPropertyTests.caseCount / 2, "the generator produces changes")
    }
}
