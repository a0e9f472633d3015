import FlaskLocking
import FlaskTestSupport
import FluxBus
import Foundation
import Testing

@testable import Substances

struct Leaf: Codable, Equatable {
    var leaf = 0
    var sibling = "s"
    var _hidden = 0
}
struct Middle: Codable, Equatable {
    var c = Leaf()
    var flag = false
}
struct Outer: Codable, Equatable {
    var b = Middle()
    var note = "n"
}
struct NestedState: State {
    var a = Outer()
    var top = 1
    var _internal = "x"
}

struct ValueState: State {
    var counter = 0
    var text = ""
    var ratio = 0.5
    var maybe: Int?
    var list: [Int] = []
    var object = FlaskRef<NSObject>(nil)
    var info: FlaskDictRef?
    var map: [String: Int] = [:]
}

struct RenamedKeys: State {
    var alpha = 0
    var beta = ""
    enum CodingKeys: String, CodingKey {
        case alpha = "a"
        case beta = "b"
    }
}

/// An enumeration whose cases hold unlabeled values (encoded under `_0`, `_1`), and integers
/// narrower than `Int`: shapes a client of the tools found mishandled.
enum TaggedValue: Codable, Equatable, Sendable {
    case none
    case tag(String)
    case pair(Int, Int)
}

struct TaggedState: State {
    var tagged = TaggedValue.none
    var small: Int8 = 0
    var smalls: [UInt8] = []
    var wide: UInt32 = 0
    // Kept as it is by every edit below: no change (the Codable path saw one at every commit).
    var ratio = Double.nan
    var ratios: [String: Float] = ["a": .nan]
}

@Suite("Change reduction")
struct ReductionTests {
    @Test(
        "an enum case's unlabeled values and narrow integers are compared on both paths (the Codable path lost the one, recursed forever on the other)",
        arguments: [false, true])
    func taggedAndNarrow(codablePath: Bool) {
        func keys(_ edit: (inout TaggedState) -> Void, from start: TaggedState = TaggedState()) -> [String] {
            var new = start
            edit(&new)
            return changedKeys(start, new, codablePath: codablePath)
        }
        #expect(keys({ $0.tagged = .tag("b") }, from: TaggedState(tagged: .tag("a"))).first == "tagged")
        #expect(keys({ $0.tagged = .pair(1, 3) }, from: TaggedState(tagged: .pair(1, 2))).first == "tagged")
        #expect(keys({ $0.tagged = .tag("a") }, from: TaggedState(tagged: .tag("a"))) == [])
        #expect(keys { $0.small = -2 } == ["small"])
        #expect(keys { $0.wide = .max } == ["wide"])
        #expect(keys { $0.smalls = [1, 2] }.first == "smalls")
        #expect(keys { $0.ratio = .nan } == [])
        #expect(keys { $0.ratio = 1 } == ["ratio"])
        // The flattened form keeps the values, `_` keys and all.
        #expect(
            FlatValue(encoding: TaggedValue.pair(1, 2)) == .keyed(["pair": .keyed(["_0": .int(1), "_1": .int(2)])]))
        #expect(FlatValue(encoding: [Int8(-1)]) == .unkeyed([.int(-1)]))
    }

    /// Twenty contiguous properties of mixed sizes: more than one group of leaves, whose bytes are
    /// compared together before the properties are.
    struct WideState: State {
        var a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0, a8 = 0, a9 = 0
        var s0 = "", s1 = "", s2 = ""
        var b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0
        var flag = false
    }

    @Test("a two-word property whose first word changes under bits its second word has set is a change")
    func twoWordDifferenceNotMasked() throws {
        // A 15-character string is stored inline: characters 0 to 7 in its first word, 8 to 14
        // (here DEL, 0x7F: the low seven bits set) in its second. "a" to "b" changes bits the
        // second word also has; the comparison of two words once or-ed the second word in before
        // xoring it, and so missed this change.
        struct TextState: State {
            var text = ""
        }
        let substance = Substance<TextState>(bus: Flux())
        let plan = ReductionPlan(for: TextState.self)
        let tail = String(repeating: "\u{7F}", count: 7)
        let old = TextState(text: "aaaaaaaa" + tail)
        let new = TextState(text: "baaaaaaa" + tail)
        let changes = try #require(StateReducer.reduce(old, new, plan: plan, reference: substance.reference))
        #expect(changes.keys == ["text"])
        // And alone, at the size of a string: every bit of either word counts.
        for word in 0..<2 {
            for bit in 0..<64 {
                var a = (UInt64.max, UInt64.max)
                var b = a
                if word == 0 { b.0 ^= 1 << UInt64(bit) } else { b.1 ^= 1 << UInt64(bit) }
                let same = StateMemory.withMemory(of: a) { x in
                    StateMemory.withMemory(of: b) { y in x.sameBits(as: y, size: 16) }
                }
                #expect(!same, "bit \(bit) of word \(word)")
                a = b
            }
        }
    }

    @Test("wide states: every property is found whichever group it is in, alone or with others")
    func wideStateGroups() {
        let paths: [(String, WritableKeyPath<WideState, Int>)] = [
            ("a0", \.a0), ("a7", \.a7), ("a8", \.a8), ("a9", \.a9), ("b0", \.b0), ("b5", \.b5),
        ]
        for (key, path) in paths {
            var new = WideState()
            new[keyPath: path] = 1
            #expect(changedKeys(WideState(), new) == [key])
        }
        var new = WideState()
        new.a0 = 1
        new.s2 = "a long string that is stored out of line, not in the property's bytes"
        new.b5 = 2
        new.flag = true
        #expect(changedKeys(WideState(), new) == ["a0", "b5", "flag", "s2"])
        #expect(changedKeys(new, new).isEmpty)
    }

    struct ListState: State {
        struct Item: Codable, Equatable {
            var id: Int
            var title: String
            var done: Bool
        }
        /// Padding inside an element: a copy may leave its bytes different while the values are equal.
        struct Padded: Codable, Equatable {
            var flag: Bool
            var value: Int
        }
        var items: [Item] = []
        var ratios: [Double] = []
        var padded: [Padded] = []
    }

    @Test(
        "arrays: an element that changed is found among identical bytes; equal elements in other bytes are not changes")
    func arraysComparedByElement() throws {
        var old = ListState()
        old.items = (0..<1_000).map { .init(id: $0, title: "item \($0)", done: false) }
        old.padded = (0..<100).map { .init(flag: $0 % 2 == 0, value: $0) }
        var new = old
        new.items[637].done = true
        #expect(changedKeys(old, new) == ["items"])
        new = old
        new.items[999].title = "item 999, a title long enough to be stored out of line"
        #expect(changedKeys(old, new) == ["items"])
        new = old
        new.items.removeLast()
        #expect(changedKeys(old, new) == ["items"])
        // Equal values in another buffer, with titles stored out of line made anew: no change.
        var long = old
        long.items = (0..<1_000).map {
            .init(id: $0, title: "a title long enough to be stored out of line \($0)", done: false)
        }
        new = long
        new.items = (0..<1_000).map {
            .init(id: $0, title: "a title long enough to be stored out of line \($0)", done: false)
        }
        #expect(changedKeys(long, new).isEmpty)
        // Bytes after each element (padding) that differ, as in reused memory: no change; one
        // element changed among them: found.
        let size = MemoryLayout<ListState.Item>.size
        let stride = MemoryLayout<ListState.Item>.stride
        try #require(size < stride)
        new = old
        new.items = old.items.map { $0 }
        new.items.withUnsafeMutableBytes { bytes in
            for element in 0..<1_000 {
                for offset in size..<stride { bytes[element * stride + offset] = 0xA5 }
            }
        }
        #expect(changedKeys(old, new).isEmpty)
        new.items[998].id = -1
        #expect(changedKeys(old, new) == ["items"])
        // Elements copied one by one (padding not copied), equal: no change; one changed: found.
        new = old
        new.padded = old.padded.map { .init(flag: $0.flag, value: $0.value) }
        #expect(changedKeys(old, new).isEmpty)
        new.padded[50].value = -1
        #expect(changedKeys(old, new) == ["padded"])
        // A NaN kept as it was is no change; a NaN where a number was is one.
        old.ratios = [1, .nan, 3]
        new = old
        new.ratios = [1, .nan, 3]
        #expect(changedKeys(old, new).isEmpty)
        new.ratios[0] = .nan
        #expect(changedKeys(old, new) == ["ratios"])
    }

    @Test("a key path's change of an array agrees with the reduction: equal in other bytes is no change")
    func keyPathChangeOfArrays() throws {
        var old = ListState()
        old.items = (0..<1_000).map {
            .init(id: $0, title: "a title long enough to be stored out of line \($0)", done: false)
        }
        old.ratios = [1, .nan]
        var new = old
        new.items = (0..<1_000).map {
            .init(id: $0, title: "a title long enough to be stored out of line \($0)", done: false)
        }
        new.items[500].done = true
        new.ratios = [1, .nan]
        let plan = ReductionPlan(for: ListState.self)
        let changes = try #require(
            StateReducer.reduce(old, new, plan: plan, reference: Substance<ListState>(bus: Flux()).reference))
        #expect(changes.change(\ListState.items)?.newValue[500].done == true)
        #expect(changes.change(\ListState.ratios) == nil)
        #expect(changes.change(\ListState.padded) == nil)
    }

    /// Small properties packed into shared words, a run of 28 properties (136 bytes) longer than
    /// the reducer's eight-word step, paddings that break runs, and out-of-line values.
    struct PackedState: State {
        var u0: UInt8 = 0, u1: UInt8 = 0, u2: UInt8 = 0, u3: UInt8 = 0, u4: UInt8 = 0, u5: UInt8 = 0
        var u6: UInt8 = 0, u7: UInt8 = 0
        var w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0, w8 = 0, w9 = 0, w10 = 0
        var w11 = 0, w12 = 0, w13 = 0, w14 = 0, w15 = 0
        var s0 = "", s1 = ""
        var flag = false
        var small: Int16 = 0
        var tail: Int32 = 0
        var ratio = 0.0
    }

    @Test("packed and long runs of properties: exactly the changed ones, in random commits")
    func packedRuns() {
        // Each property by key, with a setter of a random value (often the value it had) and an
        // equality test, the reference the reduction is checked against.
        typealias Property = (
            key: String, set: (inout PackedState, inout SeededRandom) -> Void,
            same: (PackedState, PackedState) -> Bool
        )
        func property<V: Equatable>(_ key: String, _ path: WritableKeyPath<PackedState, V>, _ values: [V]) -> Property {
            let set = { (state: inout PackedState, random: inout SeededRandom) in
                state[keyPath: path] = values.randomElement(using: &random)!
            }
            return (key, set, { $0[keyPath: path] == $1[keyPath: path] })
        }
        var properties: [Property] = (0..<8).map { index in
            let paths: [WritableKeyPath<PackedState, UInt8>] = [\.u0, \.u1, \.u2, \.u3, \.u4, \.u5, \.u6, \.u7]
            return property("u\(index)", paths[index], [0, 1, 255])
        }
        let words: [WritableKeyPath<PackedState, Int>] = [
            \.w0, \.w1, \.w2, \.w3, \.w4, \.w5, \.w6, \.w7, \.w8, \.w9, \.w10, \.w11, \.w12, \.w13, \.w14, \.w15,
        ]
        properties += words.indices.map { property("w\($0)", words[$0], [0, 1, -1, .max]) }
        properties.append(property("s0", \PackedState.s0, ["", "short", String(repeating: "long ", count: 8)]))
        properties.append(property("s1", \PackedState.s1, ["", "x"]))
        properties.append(property("flag", \PackedState.flag, [false, true]))
        properties.append(property("small", \PackedState.small, [0, 7, -1]))
        properties.append(property("tail", \PackedState.tail, [0, 1 << 20]))
        properties.append(property("ratio", \PackedState.ratio, [0, 0.5, -0.0]))
        var random = SeededRandom(seed: 0x5EED_0F_5CA4)
        var old = PackedState()
        for commit in 0..<600 {
            var new = old
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                properties.randomElement(using: &random)!.set(&new, &random)
            }
            let expected = properties.filter { !$0.same(old, new) }.map(\.key).sorted()
            #expect(changedKeys(old, new) == expected, "commit \(commit)")
            old = new
        }
    }

    @Test("top-level properties: only the changed ones", arguments: [false, true])
    func topLevel(codablePath: Bool) {
        var new = ValueState()
        new.counter = 1
        new.ratio = 0.75
        #expect(changedKeys(ValueState(), new, codablePath: codablePath) == ["counter", "ratio"])
        #expect(changedKeys(ValueState(), ValueState(), codablePath: codablePath).isEmpty)
    }

    @Test("equal values in different storage are not a change")
    func equalStrings() {
        var old = ValueState()
        old.text = String(repeating: "a", count: 40)
        var new = ValueState()
        new.text = String(repeating: "a", count: 39) + "a"
        #expect(changedKeys(old, new).isEmpty)
    }

    @Test(
        "three-level nested struct: dotted keys, parents included, `_` ignored at every depth",
        arguments: [false, true])
    func nested(codablePath: Bool) {
        var new = NestedState()
        new.a.b.c.leaf = 5
        #expect(changedKeys(NestedState(), new, codablePath: codablePath) == ["a", "a.b", "a.b.c", "a.b.c.leaf"])
        var hidden = NestedState()
        hidden.a.b.c._hidden = 9
        hidden._internal = "changed"
        #expect(changedKeys(NestedState(), hidden, codablePath: codablePath).isEmpty)
    }

    @Test("old and new values, typed and untyped")
    func values() throws {
        var new = NestedState()
        new.a.b.c.leaf = 5
        let result = try #require(changes(NestedState(), new))
        let leaf = try #require(result.change("a.b.c.leaf"))
        #expect(leaf.oldValue() == 0)
        #expect(leaf.newValue() == 5)
        let parent = try #require(result.change("a.b"))
        let middle: Middle? = parent.newValue()
        #expect(middle?.c.leaf == 5)
        #expect(leaf.newValue() as Any? as? Int == 5)
    }

    @Test("optionals: nil to value and value to nil", arguments: [false, true])
    func optionals(codablePath: Bool) throws {
        var some = ValueState()
        some.maybe = 3
        #expect(changedKeys(ValueState(), some, codablePath: codablePath) == ["maybe"])
        #expect(changedKeys(some, ValueState(), codablePath: codablePath) == ["maybe"])
        let back = try #require(changes(some, ValueState()))
        #expect(back.change("maybe")?.newValue() as Int? == nil)
        #expect(back.change("maybe")?.oldValue() as Int? == 3)
    }

    @Test("arrays compare by value")
    func arrays() {
        var one = ValueState()
        one.list = [1, 2]
        var same = ValueState()
        same.list = [1, 2]
        #expect(changedKeys(one, same).isEmpty)
        same.list.append(3)
        #expect(changedKeys(one, same) == ["list"])
    }

    @Test("FlaskRef: nil vs object, object vs object, same object", arguments: [false, true])
    func objects(codablePath: Bool) {
        let first = NSObject()
        var withFirst = ValueState()
        withFirst.object = FlaskRef(first)
        var withSecond = ValueState()
        withSecond.object = FlaskRef(NSObject())
        var firstAgain = ValueState()
        firstAgain.object = FlaskRef(first)
        #expect(changedKeys(ValueState(), withFirst, codablePath: codablePath) == ["object"])
        #expect(changedKeys(withFirst, withSecond, codablePath: codablePath) == ["object"])
        #expect(changedKeys(withFirst, firstAgain, codablePath: codablePath).isEmpty)
    }

    @Test(
        "FlaskDictRef: nested keys, removed keys change to nil, explicit nil, nil vs empty", arguments: [false, true])
    func dictionaries(codablePath: Bool) throws {
        var first = ValueState()
        first.info = FlaskDictRef(["foo": "bar", "nest": ["data": "some", "gone": 1]] as NSDictionary)
        #expect(
            changedKeys(ValueState(), first, codablePath: codablePath)
                == ["info", "info.foo", "info.nest", "info.nest.data", "info.nest.gone"])
        var second = ValueState()
        second.info = FlaskDictRef(["foo": "bar", "nest": ["data": "more", "nothing": FlaskNull()]])
        let result = try #require(changes(first, second, codablePath: codablePath))
        #expect(result.keys.sorted() == ["info", "info.nest", "info.nest.data", "info.nest.gone", "info.nest.nothing"])
        #expect(result.change("info.nest.gone")?.newValue() == nil)
        #expect(result.change("info.nest.gone")?.oldValue() as Int? == 1)
        #expect(result.change("info.nest.data")?.newValue() as String? == "more")
        var empty = ValueState()
        empty.info = FlaskDictRef([String: Any]())
        #expect(changedKeys(ValueState(), empty, codablePath: codablePath) == ["info"])
        // The same contents in a new wrapper is no change.
        var same = ValueState()
        same.info = FlaskDictRef(["foo": "bar", "nest": ["data": "some", "gone": 1]])
        #expect(changedKeys(first, same, codablePath: codablePath).isEmpty)
    }

    @Test("FlaskDictRef.updating changes one key, shares the rest, and reports just that key")
    func dictionaryUpdating() throws {
        var first = ValueState()
        first.info = FlaskDictRef(["foo": "bar", "nest": ["data": "some"], "n": 1])
        var second = first
        second.info = first.info?.updating("n", to: 2)
        #expect(changedKeys(first, second) == ["info", "info.n"])
        #expect(second.info?["n"] as? Int == 2)
        #expect(second.info?["nest.data"] as? String == "some")
        #expect(first.info?["n"] as? Int == 1, "the original is untouched")
        var third = second
        third.info = second.info?.updating("nest", to: ["data": "more"])
        #expect(changedKeys(second, third) == ["info", "info.nest", "info.nest.data"])
        var fourth = third
        fourth.info = third.info?.updating("foo", to: nil)
        let removed = try #require(changes(third, fourth))
        #expect(removed.keys.sorted() == ["info", "info.foo"])
        #expect(removed.change("info.foo")?.oldValue() as String? == "bar")
        #expect(fourth.info?["foo"] == nil)
        // Many keys, one changed: only that key is reported.
        var large = ValueState()
        large.info = FlaskDictRef(Dictionary(uniqueKeysWithValues: (0..<10_000).map { ("k\($0)", $0 as Any) }))
        var changedOne = large
        changedOne.info = large.info?.updating("k500", to: -1)
        #expect(changedKeys(large, changedOne) == ["info", "info.k500"])
    }

    @Test("Swift dictionaries report their keys too")
    func swiftDictionaries() {
        var old = ValueState()
        old.map = ["a": 1, "b": 2]
        var new = ValueState()
        new.map = ["a": 1, "c": 3]
        #expect(changedKeys(old, new) == ["map", "map.b", "map.c"])
    }

    @Test("custom CodingKeys use the Codable path and its keys")
    func customCodingKeys() {
        #expect(ReductionPlan(for: RenamedKeys.self).usesCodablePath)
        #expect(!ReductionPlan(for: ValueState.self).usesCodablePath)
        var new = RenamedKeys()
        new.alpha = 1
        #expect(changedKeys(RenamedKeys(), new) == ["a"])
    }

    /// A state with custom coding keys (so the Codable path) holding values whose encoded form is
    /// not their type: what a client found read back as a `Double`, a `String`, an `Int`.
    struct CodedState: State {
        struct Profile: Codable, Equatable, Sendable {
            var nickname = ""
            var born = Date(timeIntervalSinceReferenceDate: 0)
            enum CodingKeys: String, CodingKey {
                case nickname = "nick"
                case born = "b"
            }
        }
        var when = Date(timeIntervalSinceReferenceDate: 0)
        var id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        var link = URL(string: "https://example.com")!
        var small: Int8 = 0
        var amount = Decimal(0)
        var tagged = TaggedValue.none
        var profile = Profile()
        var maybe: Profile?
        var levels: [String: Int8] = [:]
        var numbered: [Int: Int8] = [:]
        enum CodingKeys: String, CodingKey {
            case when = "w"
            case id, link
            case small = "s"
            case amount, tagged
            case profile = "p"
            case maybe, levels, numbered
        }
    }

    @Test("a value read by key is the state's typed value on both paths, custom coding keys or not")
    func typedValuesByKey() throws {
        #expect(ReductionPlan(for: CodedState.self).usesCodablePath)
        var new = CodedState()
        new.when = Date(timeIntervalSinceReferenceDate: 86_400)
        new.id = UUID()
        new.link = URL(string: "https://example.org/a?b=c")!
        new.small = -3
        new.amount = Decimal(string: "12.34")!
        new.tagged = .pair(1, 2)
        new.profile = CodedState.Profile(nickname: "n", born: Date(timeIntervalSinceReferenceDate: 1))
        new.maybe = CodedState.Profile(nickname: "m")
        new.levels = ["a.b": 7]
        new.numbered = [3: 4]
        let result = try #require(changes(CodedState(), new))
        #expect(result.change("w")?.newValue() as Date? == new.when)
        #expect(result.change("w")?.oldValue() as Date? == CodedState().when)
        #expect(result.change("id")?.newValue() as UUID? == new.id)
        #expect(result.change("link")?.newValue() as URL? == new.link)
        #expect(result.change("s")?.newValue() as Int8? == -3)
        #expect(result.change("amount")?.newValue() as Decimal? == new.amount)
        #expect(result.change("tagged")?.newValue() as TaggedValue? == .pair(1, 2))
        #expect(result.change("p")?.newValue() as CodedState.Profile? == new.profile)
        #expect(result.change("p.nick")?.newValue() as String? == "n")
        #expect(result.change("p.b")?.newValue() as Date? == new.profile.born)
        #expect(result.change("maybe")?.oldValue() == nil)
        #expect(result.change("maybe")?.newValue() as CodedState.Profile? == new.maybe)
        #expect(result.change("maybe.nick")?.newValue() as String? == "m")
        #expect(result.change("maybe.nick")?.oldValue() == nil)
        #expect(result.change("levels.a\\.b")?.newValue() as Int8? == 7)
        #expect(result.change("levels.a\\.b")?.oldValue() == nil)
        #expect(result.change("levels")?.newValue() as [String: Int8]? == ["a.b": 7])
        #expect(result.change("numbered.3")?.newValue() as Int8? == 4)
        #expect(result.change("numbered.3")?.oldValue() == nil)
        // Below a value that has no key of its own (an enum case's payload), the encoded form.
        #expect(result.change("tagged.pair._0")?.newValue() as Int? == 1)
    }

    @propertyWrapper
    struct Clamped: Codable, Equatable, Sendable {
        var wrappedValue: Int
        init(wrappedValue: Int) { self.wrappedValue = min(max(wrappedValue, 0), 10) }
        init(from decoder: any Decoder) throws { wrappedValue = try decoder.singleValueContainer().decode(Int.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(wrappedValue)
        }
    }

    struct WrappedState: State {
        @Clamped var level = 0
        var count = 0
    }

    struct Session: Codable, Equatable, Sendable {
        var user = ""
        var token = ""
    }

    /// Keys that are property names (the layout path), values changed by the state's own
    /// encoding: what a key below a property reads is the property's value, not its encoding's.
    struct RedactingState: State {
        var session: Session?
        var count = 0
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(session.map { Session(user: $0.user, token: "") }, forKey: .session)
            try container.encode(count, forKey: .count)
        }
    }

    @Test("a property wrapper's value, and a value below a property whose state encodes it otherwise, are read as held")
    func typedValuesAsHeld() throws {
        var wrapped = WrappedState()
        wrapped.level = 5
        let levels = try #require(changes(WrappedState(), wrapped))
        #expect(levels.change("level")?.newValue() as Int? == 5)
        var redacting = RedactingState()
        redacting.session = Session(user: "a", token: "t1")
        #expect(!ReductionPlan(for: RedactingState.self).usesCodablePath)
        let sessions = try #require(changes(RedactingState(), redacting))
        #expect(sessions.change("session.user")?.newValue() as String? == "a")
        #expect(sessions.change("session")?.newValue() as Session? == redacting.session)
    }

    @Test("the typed value at a key: found along the key alone, absent, or not known")
    func typedValueFinder() {
        struct Inner: Codable { var x = 1 }
        struct Outer: Codable {
            var inner = Inner()
            var list = [Inner(x: 2)]
            var ref = FlaskDictRef(["k": 1])
        }
        func found(_ key: String) -> Any?? {
            if case .found(let value) = TypedValueFinder.value(atKey: key, in: Outer()) { return .some(value) }
            return .none
        }
        #expect(found("inner.x") as? Int == 1)
        // A dictionary keyed by integers: its entry looked up by the key's digits.
        let numbered: [Int: Inner] = [7: Inner(x: 8), -2: Inner(x: 9)]
        if case .found(let value) = TypedValueFinder.value(atKey: "7.x", in: numbered) {
            #expect(value as? Int == 8)
        } else {
            Issue.record("7.x")
        }
        if case .found(let value) = TypedValueFinder.value(atKey: "-2", in: numbered) {
            #expect((value as? Inner)?.x == 9)
        } else {
            Issue.record("-2")
        }
        if case .absent = TypedValueFinder.value(atKey: "8", in: numbered) {} else { Issue.record("8") }
        #expect(found("list.0.x") as? Int == 2)
        #expect(found("inner") as? Inner != nil)
        if case .absent = TypedValueFinder.value(atKey: "inner.y", in: Outer()) {} else { Issue.record("inner.y") }
        if case .absent = TypedValueFinder.value(atKey: "inner.x.z", in: Outer()) {} else { Issue.record("x.z") }
        if case .unknown = TypedValueFinder.value(atKey: "ref.k", in: Outer()) {} else { Issue.record("ref.k") }
    }

    @Test("key validity: properties, nested properties, dictionary sub-keys")
    func validity() {
        let plan = ReductionPlan(for: NestedState.self)
        #expect(plan.isValid(key: "a.b.c.leaf"))
        #expect(plan.isValid(key: "top"))
        #expect(!plan.isValid(key: "a.b.nope"))
        #expect(!plan.isValid(key: "no.such.key"))
        let values = ReductionPlan(for: ValueState.self)
        #expect(values.isValid(key: "info.anything.below"))
    }

    @Test("the public reduction of flattened states")
    func publicReduction() {
        let keys = StateReducer.reduce(
            ["a": 1, "n": ["x": 1, "y": 2] as [String: any Sendable], "_i": 1],
            ["a": 1, "n": ["x": 2] as [String: any Sendable], "_i": 2])
        #expect(keys == ["n", "n.x", "n.y"])
    }

    @Test("layout and Codable paths agree on random mutations")
    func pathsAgree() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var old = ValueState()
            var new = ValueState()
            for state in [0, 1] {
                var value = ValueState()
                if Bool.random(using: &generator) { value.counter = Int.random(in: 0...2, using: &generator) }
                if Bool.random(using: &generator) { value.text = ["", "a", "b"].randomElement(using: &generator)! }
                if Bool.random(using: &generator) { value.maybe = Int.random(in: 0...1, using: &generator) }
                if Bool.random(using: &generator) { value.list = [Int.random(in: 0...1, using: &generator)] }
                if Bool.random(using: &generator) {
                    value.info = FlaskDictRef(["k": Int.random(in: 0...1, using: &generator), "n": ["m": "v"]])
                }
                if Bool.random(using: &generator) { value.map = ["x": Int.random(in: 0...1, using: &generator)] }
                if state == 0 { old = value } else { new = value }
            }
            #expect(changedKeys(old, new) == changedKeys(old, new, codablePath: true))
        }
    }
}

@Suite("Key table: plan entries by the bits of their keys")
struct KeyTableTests {
    @Test("every short key is found, however its string was made; unknown keys are not")
    func shortKeys() {
        let keys = (0..<40).map { "key\($0)" }
        let table = KeyTable(keys: keys)
        for (entry, key) in keys.enumerated() {
            #expect(table.entry(forKey: key) == Int32(entry))
            let rebuilt = String(key.prefix(3)) + String(key.dropFirst(3))
            #expect(table.entry(forKey: rebuilt) == Int32(entry))
        }
        #expect(table.entry(forKey: "key40") == nil)
        #expect(table.entry(forKey: "") == nil)
    }

    @Test("a long key is found by its own string; another string with the same text may miss, never mismatch")
    func longKeys() {
        let long = "settings.display.brightness.level"
        let table = KeyTable(keys: ["a", long])
        #expect(table.entry(forKey: long) == 1)
        let other = String(long.dropLast()) + "l"
        #expect(table.entry(forKey: other) == nil || table.entry(forKey: other) == 1)
        #expect(table.entry(forKey: "settings.display.brightness.other") == nil)
    }
}

@Suite("Dictionary keys that contain a dot")
struct DottedDictionaryKeyTests {
    struct Info: State {
        var info: FlaskDictRef?
    }

    @Test("a key with a dot and the nested path spelled the same are two keys: the dot is escaped")
    func escaped() async {
        let substance = Substance<Info>(bus: Flux())
        let log = ChangeLog()
        substance.bind(log)
        await substance.mixAndWait { $0.prop.info = FlaskDictRef(["a.b": 1, "a": ["b": 2]]) }
        let changes = log.entries.all.last?.changes
        #expect(Set(changes?.keys ?? []) == ["info", "info.a", "info.a.b", "info.a\\.b"])
        #expect(changes?.change("info.a\\.b")?.newValue() == 1)
        #expect(changes?.change("info.a.b")?.newValue() == 2)
        #expect(FlaskDictRef.escapedKey("a.b") == "a\\.b")
        #expect(FlaskDictRef.escapedKey("back\\slash") == "back\\\\slash")
        let dictionary = substance.state.info
        #expect(dictionary?["a\\.b"] as? Int == 1)
        #expect(dictionary?["a.b"] as? Int == 2)
        #expect(dictionary?["info.\\"] == nil)
    }

    @Test("escaping round-trips through the components of a dotted key")
    func components() {
        for key in ["plain", "a.b", "a\\b", ".lead", "trail.", "a\\.b", ""] {
            let dotted = "top." + DottedKey.escape(key) + ".leaf"
            #expect(DottedKey.components(of: dotted) == ["top", key, "leaf"], "\(key)")
        }
    }

    @Test("a dotted key splits at each dot, empty components kept, as split(separator:) does")
    func componentsWithoutEscapes() {
        for key in ["counter", "", ".", "..", "a.b", "a..b", ".a", "a.", "info.nest.foo", "é.ü.日本", "a b.c"] {
            let expected = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            #expect(DottedKey.components(of: key) == expected, "\(key)")
        }
    }
}
