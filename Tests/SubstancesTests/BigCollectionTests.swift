import FlaskTestSupport
import FluxBus
import Foundation
import Testing

@testable import Substances

// BigDictionary and BigArray against the plain collections they stand for: random edits on both,
// the same contents, the same equality, the same changes found by the reduction (keys, old and
// new values), the same encoding.

struct PlainCollections: State {
    var cards: [String: DItem] = [:]
    var items: [DItem] = []
    var maybe: [String: Int]?
    var count = 0
}

struct BigCollections: State {
    var cards: BigDictionary<String, DItem> = [:]
    var items: BigArray<DItem> = []
    var maybe: BigDictionary<String, Int>?
    var count = 0
}

/// A key equal to another of its name whatever its spelling, all of one hash: they meet in a
/// collision node.
struct SpelledKey: Hashable, Sendable {
    var name: String
    var spelling: String

    static func == (lhs: SpelledKey, rhs: SpelledKey) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
}

/// A key whose hash is one of a few values: keys that share all 64 bits of it meet in collision
/// nodes, keys that share some in deep paths.
struct CollidingKey: Hashable, Codable, Comparable {
    var name: String
    var hashGroup: Int

    func hash(into hasher: inout Hasher) {
        hasher.combine(hashGroup)
    }

    static func < (lhs: CollidingKey, rhs: CollidingKey) -> Bool { lhs.name < rhs.name }
}

@Suite("Big collections: the same as plain ones, at the cost of the change")
struct BigCollectionTests {
    /// Applies the same one to three random edits to both states.
    static func mutate(_ plain: inout PlainCollections, _ big: inout BigCollections, _ random: inout SeededRandom) {
        func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }
        let keys = ["a", "b", "c.d", "_e"] + (0..<40).map { "k\($0)" }
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let key = pick(keys)
            switch Int.random(in: 0..<13, using: &random) {
            case 0:
                let value = pick([
                    nil, DItem(), DItem(count: 1), DItem(flag: true, name: "a long name, stored out of line"),
                ])
                plain.cards[key] = value
                big.cards[key] = value
            case 1:
                // Changed in place, maybe to the same value, maybe only in a `_` property.
                let change = Int.random(in: 0..<4, using: &random)
                func edit(_ item: inout DItem) {
                    switch change {
                    case 0: item.flag.toggle()
                    case 1: item.count = 1
                    case 2: item._cache += 1
                    default: break
                    }
                }
                if plain.cards[key] != nil { edit(&plain.cards[key]!) }
                if big.cards[key] != nil { edit(&big.cards[key]!) }
            case 2:
                for index in 0..<Int.random(in: 0...60, using: &random) {
                    plain.cards["k\(index)", default: DItem()].count = index % 3
                    big.cards["k\(index)", default: DItem()].count = index % 3
                }
            case 3:
                // Rebuilt: other nodes, maybe the same entries.
                plain.cards = Dictionary(uniqueKeysWithValues: plain.cards.map { ($0.key, $0.value) })
                big.cards = BigDictionary(big.cards.dictionary)
            case 4:
                let value = pick([nil, [:], ["a": 1]] as [[String: Int]?])
                plain.maybe = value
                big.maybe = value.map { BigDictionary($0) }
            case 5:
                let value = pick([nil, 1, 2])
                plain.maybe?[key] = value
                big.maybe?[key] = value
            case 6:
                let item = DItem(count: Int.random(in: 0..<3, using: &random))
                plain.items.append(item)
                big.items.append(item)
            case 7:
                if !plain.items.isEmpty {
                    plain.items.removeLast()
                    big.items.removeLast()
                }
            case 8:
                if !plain.items.isEmpty {
                    let index = Int.random(in: 0..<plain.items.count, using: &random)
                    let count = pick([0, 1, 2])
                    plain.items[index].count = count
                    big.items[index].count = count
                }
            case 9:
                let index = Int.random(in: 0...plain.items.count, using: &random)
                plain.items.insert(DItem(name: "inserted"), at: index)
                big.items.insert(DItem(name: "inserted"), at: index)
            case 10:
                if !plain.items.isEmpty {
                    let index = Int.random(in: 0..<plain.items.count, using: &random)
                    plain.items.remove(at: index)
                    big.items.remove(at: index)
                }
            case 11:
                // A move: out of one place, into another.
                if plain.items.count > 1 {
                    let from = Int.random(in: 0..<plain.items.count, using: &random)
                    let to = Int.random(in: 0..<plain.items.count - 1, using: &random)
                    plain.items.insert(plain.items.remove(at: from), at: to)
                    big.items.insert(big.items.remove(at: from), at: to)
                }
            default:
                let extra = (0..<Int.random(in: 0...100, using: &random)).map { DItem(count: $0) }
                plain.items.append(contentsOf: extra)
                big.items.append(contentsOf: extra)
            }
        }
    }

    /// A value as text, as `DictionaryReductionTests.describe` writes it, a big collection as the
    /// plain one of its elements.
    static func describe(_ value: Any?) -> String {
        if let dictionary = value as? BigDictionary<String, DItem> { return describe(dictionary.dictionary) }
        if let dictionary = value as? BigDictionary<String, Int> { return describe(dictionary.dictionary) }
        if let array = value as? BigArray<DItem> { return describe(array.array) }
        return DictionaryReductionTests.describe(value)
    }

    @Test("random edits: the same contents, equality, changes and old and new values as plain collections")
    func differential() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        let plainSubstance = Substance<PlainCollections>(bus: Flux())
        let bigSubstance = Substance<BigCollections>(bus: Flux())
        let plainPlan = ReductionPlan(for: PlainCollections.self)
        let bigPlan = ReductionPlan(for: BigCollections.self)
        #expect(!bigPlan.usesCodablePath)
        var plain = PlainCollections()
        var big = BigCollections()
        var mismatches = 0
        var changedCases = 0
        for index in 0..<3_000 {
            let (oldPlain, oldBig) = (plain, big)
            if index % 50 == 49 {
                plain = PlainCollections()
                big = BigCollections()
            }
            Self.mutate(&plain, &big, &random)
            var problems: [String] = []
            if big.cards.dictionary != plain.cards { problems.append("cards differ") }
            if big.items.array != plain.items { problems.append("items differ") }
            if !big.cards.isWellFormed || !big.items.isWellFormed { problems.append("a trie out of shape") }
            if (oldBig.cards == big.cards) != (oldPlain.cards == plain.cards) { problems.append("cards' == differs") }
            if (oldBig.items == big.items) != (oldPlain.items == plain.items) { problems.append("items' == differs") }
            let expected = StateReducer.reduce(oldPlain, plain, plan: plainPlan, reference: plainSubstance.reference)
            let found = StateReducer.reduce(oldBig, big, plan: bigPlan, reference: bigSubstance.reference)
            if !(expected?.keys ?? []).isEmpty { changedCases += 1 }
            if let difference = DictionaryReductionTests.difference(found, expected, describe: Self.describe) {
                problems.append(difference)
            }
            if !problems.isEmpty {
                mismatches += 1
                if mismatches <= 3 { Issue.record("case \(index) of seed \(seed): \(problems)") }
            }
        }
        #expect(mismatches == 0, "seed \(seed)")
        #expect(changedCases > 2_000, "the generator produces changes")
    }

    @Test("keys whose hashes collide, in all 64 bits or some: found, replaced, removed, compared")
    func collisions() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        var plain: [CollidingKey: Int] = [:]
        var big = BigDictionary<CollidingKey, Int>()
        for step in 0..<20_000 {
            let key = CollidingKey(
                name: "n\(Int.random(in: 0..<60, using: &random))", hashGroup: Int.random(in: 0..<4, using: &random))
            let old = big
            let oldPlain = plain
            if Bool.random(using: &random) {
                let value = Int.random(in: 0..<3, using: &random)
                #expect(big.updateValue(value, forKey: key) == plain.updateValue(value, forKey: key))
            } else {
                #expect(big.removeValue(forKey: key) == plain.removeValue(forKey: key))
            }
            #expect(big.count == plain.count)
            #expect((old == big) == (oldPlain == plain), "step \(step) of seed \(seed)")
            if step % 500 == 0 {
                #expect(big.dictionary == plain, "seed \(seed)")
                #expect(big.isWellFormed, "seed \(seed)")
                #expect(BigDictionary(plain) == big)
            }
        }
        #expect(big.dictionary == plain)
    }

    @Test(
        "a key equal to one stored but spelled with other bytes replaces the value and keeps the stored key, as a plain dictionary does"
    )
    func keyKeptAsStored() throws {
        let (decomposed, composed) = ("e\u{301}", "\u{e9}")
        #expect(decomposed == composed && Array(decomposed.utf8) != Array(composed.utf8))
        var plain: [String: Int] = [decomposed: 1]
        var big: BigDictionary<String, Int> = [decomposed: 1]
        plain[composed] = 2
        big[composed] = 2
        plain.updateValue(3, forKey: composed)
        big.updateValue(3, forKey: composed)
        plain[composed, default: 0] += 1
        big[composed, default: 0] += 1
        #expect(big.dictionary == plain && big[decomposed] == 4)
        #expect(big.keys.map { Array($0.utf8) } == plain.keys.map { Array($0.utf8) })
        #expect(big.keys.map { Array($0.utf8) } == [Array(decomposed.utf8)])
        #expect(try JSONEncoder().encode(big) == JSONEncoder().encode(plain))
        // In a collision node too: keys whose hashes share all 64 bits, one equal to another.
        var colliding = BigDictionary<SpelledKey, Int>()
        for name in ["a", "b", "c"] { colliding[SpelledKey(name: name, spelling: "first")] = 1 }
        colliding[SpelledKey(name: "b", spelling: "second")] = 2
        #expect(colliding.keys.map(\.spelling).sorted() == ["first", "first", "first"])
        #expect(colliding[SpelledKey(name: "b", spelling: "any")] == 2 && colliding.isWellFormed)
    }

    @Test("encoded as the plain collections are, and decoded from them: an archive restores either way")
    func codable() throws {
        var plain = PlainCollections()
        plain.cards = ["a": DItem(count: 1), "b.c": DItem(name: "x")]
        plain.items = (0..<100).map { DItem(count: $0) }
        plain.maybe = ["m": 3]
        plain.count = 2
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let plainJSON = try encoder.encode(plain)
        let big = try JSONDecoder().decode(BigCollections.self, from: plainJSON)
        #expect(big.cards.dictionary == plain.cards)
        #expect(big.items.array == plain.items)
        #expect(big.maybe?.dictionary == plain.maybe)
        #expect(try encoder.encode(big) == plainJSON)
        let back = try JSONDecoder().decode(PlainCollections.self, from: try encoder.encode(big))
        #expect(back.cards == plain.cards && back.items == plain.items)
        // Keys other than strings too.
        let numbered: [Int: String] = [1: "one", 2: "two"]
        let bigNumbered = try JSONDecoder().decode(BigDictionary<Int, String>.self, from: try encoder.encode(numbered))
        #expect(bigNumbered.dictionary == numbered)
        #expect(try encoder.encode(bigNumbered) == (try encoder.encode(numbered)))
    }

    @Test("one changed entry of 200,000: the tries are compared along one path, and one key found")
    func oneCandidateOfMany() {
        let old = BigDictionary(Dictionary(uniqueKeysWithValues: (0..<200_000).map { ("k\($0)", $0) }))
        var new = old
        new["k100000"] = -1
        var compared = 0
        let candidates = BigDictionary.candidates(old, new) { a, b in
            compared += 1
            return a == b
        }
        #expect(candidates == ["k100000"])
        #expect(compared == 1, "values compared: \(compared)")
        #expect(old.isWellFormed && new.isWellFormed)
        var equal = old == new
        #expect(!equal)
        new["k100000"] = 100_000
        equal = old == new
        #expect(equal)
    }

    @Test("every one-entry edit of a few thousand entries is found, by the tries' comparison and by the reduction")
    func everyEditFound() throws {
        let substance = Substance<BigCollections>(bus: Flux())
        let plan = ReductionPlan(for: BigCollections.self)
        var state = BigCollections()
        state.cards = BigDictionary(Dictionary(uniqueKeysWithValues: (0..<3_000).map { ("k\($0)", DItem()) }))
        var missed: [String] = []
        for round in 0..<6_000 {
            let key = "k\(round * 7_919 % 3_000)"
            let old = state
            state.cards[key, default: DItem()].count += 1
            let changes = StateReducer.reduce(old, state, plan: plan, reference: substance.reference)
            if Set(changes?.keys ?? []) != ["cards", "cards.\(key)", "cards.\(key).count"] {
                missed.append(key)
            }
        }
        #expect(missed.isEmpty, "\(missed.count) edits missed, the first \(missed.prefix(5))")
        #expect(state.cards.isWellFormed)
    }

    @Test("mapValues keeps every key and maps every value, as a plain dictionary's does")
    func mapValues() {
        let plain = Dictionary(uniqueKeysWithValues: (0..<5_000).map { ("k\($0)", $0) })
        let mapped = BigDictionary(plain).mapValues { "v\($0)" }
        #expect(mapped.dictionary == plain.mapValues { "v\($0)" })
        #expect(mapped.isWellFormed)
        #expect(mapped["k42"] == "v42")
    }

    @Test("an array's edits at the end keep the tree in shape, across heights")
    func arrayAtTheEnd() {
        var array = BigArray<Int>()
        var plain: [Int] = []
        for value in 0..<(32 * 32 * 2 + 5) {
            array.append(value)
            plain.append(value)
        }
        #expect(array.array == plain && array.isWellFormed)
        while !plain.isEmpty {
            #expect(array.removeLast() == plain.removeLast())
            if plain.count % 97 == 0 { #expect(array.isWellFormed && array.array == plain) }
        }
        #expect(array.isEmpty && array.isWellFormed)
    }
}
