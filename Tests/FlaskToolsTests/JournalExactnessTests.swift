import FlaskTestSupport
import FlaskTools
import FluxBus
import Foundation
import Reactors
import Substances
import Testing

/// A board with every shape a state takes: optionals (of values and of structs), arrays,
/// dictionaries (of values and of arrays), an enumeration with associated values, nested structs.
struct Board: State, Equatable {
    struct Card: Codable, Equatable, Sendable {
        var id: Int
        var title: String
        var tags: [String] = []
    }
    enum Mode: Codable, Equatable, Sendable {
        case idle
        case editing(cardID: Int)
        case moving(from: String, to: String)
        // Unlabeled values, encoded under `_0`, `_1` (a client found them recorded as `{}`).
        case tagged(String)
        case pair(Int, Int)
    }
    struct Nested: Codable, Equatable, Sendable {
        struct Inner: Codable, Equatable, Sendable {
            var flag = false
            var label: String?
        }
        var count = 0
        var note: String?
        var inner = Inner()
    }
    var title = ""
    var selected: Card?
    var index: [String: Card] = [:]
    var columns: [String: [Card]] = [:]
    var order: [Int] = []
    var mode = Mode.idle
    var nested = Nested()
    var maybeNested: Nested?
    // Integers narrower than `Int` (a client found that changing one crashed the journal).
    var level: Int8 = 0
    var sizes: [UInt16] = []
    var modes: [Mode] = []
}

/// A tree as deep as one likes: values nested past what a journal's line can hold.
struct DeepNode: Codable, Equatable, Sendable {
    var kids: [DeepNode] = []

    static func nested(_ depth: Int) -> DeepNode {
        var node = DeepNode()
        for _ in 0..<depth { node = DeepNode(kids: [node]) }
        return node
    }
}

struct DeepState: State, Equatable {
    var root = DeepNode()
}

struct WideState: State, Equatable {
    var id: UInt64 = 0
    var ids: [String: UInt64] = [:]
    var size = 0.0
}

/// One random change of a board.
private func randomEdit(_ board: inout Board, _ random: inout SeededRandom) {
    let card = Board.Card(
        id: Int.random(in: 0..<20, using: &random), title: "t\(Int.random(in: 0..<5, using: &random))",
        tags: Bool.random(using: &random) ? [] : ["x", "y"].shuffled(using: &random))
    let key = "k\(Int.random(in: 0..<6, using: &random))"
    switch Int.random(in: 0..<19, using: &random) {
    case 0: board.title = "title \(Int.random(in: 0..<3, using: &random))"
    case 1: board.selected = card
    case 2: board.selected = nil
    case 3: board.selected?.title += "!"
    case 4: board.index[key] = card
    case 5: board.index[key] = nil
    case 6: board.index[key]?.tags.append("z")
    case 7: board.columns[key, default: []].append(card)
    case 8: board.columns[key] = nil
    case 9: board.order.append(Int.random(in: 0..<9, using: &random))
    case 10: if !board.order.isEmpty { board.order.removeLast() }
    case 11:
        let modes: [Board.Mode] = [
            .idle, .editing(cardID: card.id), .moving(from: key, to: "done"), .tagged(key), .pair(card.id, 2),
        ]
        board.mode = modes[Int.random(in: 0..<modes.count, using: &random)]
        switch Int.random(in: 0..<4, using: &random) {
        case 0: board.level &+= Int8.random(in: -3...3, using: &random)
        case 1: board.sizes.append(UInt16.random(in: 0...UInt16.max, using: &random))
        case 2: board.modes.append(modes[Int.random(in: 0..<modes.count, using: &random)])
        default: if !board.modes.isEmpty { board.modes[0] = .tagged("m\(Int.random(in: 0..<3, using: &random))") }
        }
    case 12: board.nested.count += 1
    case 13: board.nested.note = Bool.random(using: &random) ? nil : "n\(Int.random(in: 0..<3, using: &random))"
    case 14: board.nested.inner.label = Bool.random(using: &random) ? nil : key
    // An array's element changed where it lies (recorded as that element, at its index).
    case 16: if !board.order.isEmpty { board.order[Int.random(in: 0..<board.order.count, using: &random)] += 1 }
    case 17: if board.columns[key]?.isEmpty == false { board.columns[key]?[0].title += "?" }
    // Elements inserted or removed in the middle, several appended or removed at the end (recorded
    // element by element where that is smaller than the array).
    case 15:
        switch Int.random(in: 0..<4, using: &random) {
        case 0: board.order.insert(7, at: Int.random(in: 0...board.order.count, using: &random))
        case 1:
            if !board.order.isEmpty { board.order.remove(at: Int.random(in: 0..<board.order.count, using: &random)) }
        case 2: board.order.append(contentsOf: [1, 2, 3])
        default: board.order.removeLast(min(board.order.count, 3))
        }
        if board.columns[key]?.isEmpty == false, Bool.random(using: &random) { board.columns[key]?.removeLast() }
    default:
        board.maybeNested =
            Bool.random(using: &random) ? nil : Board.Nested(count: Int.random(in: 0..<3, using: &random))
    }
}

/// `value` decoded as `type`, through its JSON.
private func decode<T: State>(_ type: T.Type, _ value: JournalValue) throws -> T {
    try value.decoded(as: type)
}

/// Numbers and Booleans, which a journal keeps as their bits when one of them is a commit's only
/// change; and the same state with a secret key, which it keeps as values: the reference.
struct Gauges: State, Equatable {
    var count = 0
    var small: Int8 = 0
    var half: Int16 = 0
    var word: UInt32 = 0
    var big: UInt64 = 0
    var ratio = 0.0
    var single: Float = 0
    var on = false
    var label = ""
}

struct SecretGauges: State, Equatable {
    static var secretKeys: Set<String> { ["token"] }
    var count = 0
    var small: Int8 = 0
    var half: Int16 = 0
    var word: UInt32 = 0
    var big: UInt64 = 0
    var ratio = 0.0
    var single: Float = 0
    var on = false
    var label = ""
    var token = ""

    init() {}

    init(_ gauges: Gauges) {
        (count, small, half, word, big) = (gauges.count, gauges.small, gauges.half, gauges.word, gauges.big)
        (ratio, single, on, label) = (gauges.ratio, gauges.single, gauges.on, gauges.label)
    }
}

/// A second state of numbers, committed between the gauges' mixes: the fold then meets another
/// substance, and keys kept as bits of another plan.
struct Meter: State, Equatable {
    var level = 0
}

struct SecretMeter: State, Equatable {
    static var secretKeys: Set<String> { ["token"] }
    var level = 0
    var token = ""
}

/// Numbers JSON has no spelling for, nested in a struct and in an array, beside a string spelled
/// like the journal's own marks for them.
struct Readings: State, Equatable {
    struct Point: Codable, Equatable, Sendable {
        var x: Float = 0
        var y = 0.0
    }
    var point = Point()
    var samples: [Double] = []
    var label = ""
}

@Suite("The journal rebuilds exactly the states the app had")
struct JournalExactnessTests {
    @Test("a nil optional is nil, a removed entry absent, an empty collection empty (the page's and the document's)")
    func nilRemovedEmpty() async throws {
        let (bus, journal) = journaledBus("exact.nil")
        let board = Substance<Board>(bus: bus)
        let card = Board.Card(id: 1, title: "one")
        await ChainReaction().mix(board) {
            $0.prop.selected = card
            $0.prop.index = ["a": card, "b": card]
            $0.prop.order = [1, 2]
        }.reactAndWait()
        await ChainReaction().mix(board) {
            $0.prop.selected = nil
            $0.prop.index["a"] = nil
            $0.prop.order = []
        }.reactAndWait()
        let document = journal.document
        let last = try #require(document.entries.last)
        let state = try #require(document.states(after: last.serial)["\(board.name())"])
        #expect(state.value(at: "selected") == nil || state.value(at: "selected") == .null, "\(state)")
        #expect(state.value(at: "index.a") == nil, "the removed entry is absent: \(state)")
        #expect(state.value(at: "index.b") != nil)
        #expect(state.value(at: "order") == .array([]))
        #expect(try decode(Board.self, state) == board.state)
        // What the journal recorded says the entry was removed, not set to null.
        let removal = try #require(last.changes.first?.values?.first { $0.key == "index.a" })
        #expect(!removal.newExists && removal.oldExists)
        let written = journal.jsonLines()
        #expect(!written.contains(#""id":null"#), "no card made of nulls: \(written)")
    }

    @Test("a commit that adds many entries records each entry whole, none of their fields, and rebuilds exactly")
    func manyEntriesAdded() async throws {
        let (bus, journal) = journaledBus("exact.many")
        let board = Substance<Board>(bus: bus)
        // Found from outside: each entry's fields were checked against every entry recorded whole
        // before them, quadratic in the number of entries (8,000 took 1.6 s in a release build).
        let cards = Dictionary(
            uniqueKeysWithValues: (0..<2_000).map { ("c\($0)", Board.Card(id: $0, title: "t\($0)")) })
        await ChainReaction().mix(board) { $0.prop.index = cards }.reactAndWait()
        let values = try #require(journal.entries.last?.changes.first?.values)
        #expect(values.count == 2_000)
        #expect(values.allSatisfy { $0.key.hasPrefix("index.c") && !$0.oldExists && $0.newExists })
        #expect(Set(values.map(\.key)) == Set(cards.keys.map { "index." + $0 }))
        let document = journal.document
        let rebuilt = document.states(after: try #require(journal.entries.last?.serial))[board.name()] ?? .null
        #expect(try decode(Board.self, rebuilt) == board.state)
    }

    @Test(
        "a value nested deeper than a journal's line can hold is recorded as unrepresentable; its entry is written and read back"
    )
    func deepValues() async throws {
        let (bus, journal) = journaledBus("exact.deep")
        let tree = Substance<DeepState>(bus: bus)
        // 200 deep is 400 levels of JSON, within a line; 254 and 300 are not (a client found the
        // 254 deep one recorded, and its line silently left out of the export).
        for depth in [200, 254, 300] {
            let root = DeepNode.nested(depth)
            await ChainReaction().mix(tree) { $0.prop.root = root }.reactAndWait()
        }
        let entries = journal.entries
        #expect(entries.count == 3)
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        #expect(read.entries.map(\.serial) == entries.map(\.serial), "no entry is left out of the lines")
        let first = try #require(entries.first?.serial)
        let rebuilt = read.states(after: first)[tree.name()] ?? .null
        #expect(try decode(DeepState.self, rebuilt) == DeepState(root: .nested(200)))
        for entry in entries.dropFirst() {
            let values = entry.changes.flatMap { $0.values ?? [] }
            #expect(values.contains { !$0.new.isRepresentable }, "mix #\(entry.serial): \(values.map(\.key))")
        }
    }

    @Test("an unsigned integer past Int.max is recorded as unrepresentable, not as a Double that holds it inexactly")
    func unsignedPastIntMax() async throws {
        let (bus, journal) = journaledBus("exact.unsigned")
        let wide = Substance<WideState>(bus: bus)
        await ChainReaction().mix(wide) { $0.prop.id = UInt64(Int.max) }.reactAndWait()
        await ChainReaction().mix(wide) {
            $0.prop.id = .max
            $0.prop.ids["a"] = UInt64(Int.max) + 1
        }
        .reactAndWait()
        let entries = journal.entries
        #expect(entries.first?.changes.first?.values?.first?.new == .int(Int.max), "Int.max itself is exact")
        let values = try #require(entries.last?.changes.first?.values)
        #expect(!values.isEmpty && values.allSatisfy { $0.new == .unrepresentable(type: "UInt64") }, "\(values)")
        // Read back from its line the same.
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        #expect(read.entries.last?.changes.first?.values?.map(\.new) == values.map(\.new))
        // A double that large, which JSON writes as a whole number, stays the double it is.
        await ChainReaction().mix(wide) { $0.prop.size = 1e19 }.reactAndWait()
        #expect(journal.entries.last?.changes.first?.values?.first?.new == .double(1e19))
        let state = try #require(journal.document.states(after: journal.entries.last?.serial ?? 0)[wide.name()])
        #expect(state.value(at: "size") == .double(1e19))
    }

    @Test(
        "an array's changed, new or gone element is recorded as that element, at its index; the array whole when that is no smaller"
    )
    func arrayElements() async throws {
        let (bus, journal) = journaledBus("exact.elements")
        let board = Substance<Board>(bus: bus)
        func recorded() -> [String]? { journal.entries.last?.changes.first?.values?.map(\.key) }
        await ChainReaction().mix(board) { $0.prop.order = [1, 2, 3] }.reactAndWait()
        await ChainReaction().mix(board) { $0.prop.order[1] = 20 }.reactAndWait()
        let element = try #require(journal.entries.last?.changes.first?.values?.first)
        #expect(recorded() == ["order.1"])
        #expect(element.old == .int(2) && element.new == .int(20))
        await ChainReaction().mix(board) { $0.prop.order = [7, 8, 9] }.reactAndWait()
        #expect(recorded() == ["order"], "every element changed: the array")
        await ChainReaction().mix(board) { $0.prop.order.append(1) }.reactAndWait()
        #expect(recorded() == ["order.3"], "a new element: that element")
        let appended = try #require(journal.entries.last?.changes.first?.values?.first)
        #expect(!appended.oldExists && appended.newExists && appended.new == .int(1))
        await ChainReaction().mix(board) { $0.prop.order.append(contentsOf: [2, 3]) }.reactAndWait()
        #expect(recorded() == ["order.4", "order.5"], "new elements in order: each is appended")
        await ChainReaction().mix(board) {
            $0.prop.order[0] = 70
            $0.prop.order.removeLast(2)
        }
        .reactAndWait()
        #expect(recorded() == ["order.0", "order.5", "order.4"], "gone elements from the last: each is the last")
        let gone = try #require(journal.entries.last?.changes.first?.values?.last)
        #expect(gone.oldExists && !gone.newExists && gone.old == .int(2))
        await ChainReaction().mix(board) { $0.prop.order.removeFirst() }.reactAndWait()
        #expect(recorded() == ["order"], "the front removed (every position changed): the array")
        await ChainReaction().mix(board) { $0.prop.order = [] }.reactAndWait()
        #expect(recorded() == ["order"], "emptied: the array")
        await ChainReaction().mix(board) { $0.prop.order = [5] }.reactAndWait()
        #expect(recorded() == ["order"], "filled from empty: the array")
        await ChainReaction().mix(board) {
            $0.prop.columns["todo"] = [.init(id: 1, title: "a"), .init(id: 2, title: "b")]
        }
        .reactAndWait()
        await ChainReaction().mix(board) { $0.prop.columns["todo"]?[1].title = "c" }.reactAndWait()
        #expect(recorded() == ["columns.todo.1"])
        let state = try #require(journal.document.states(after: journal.entries.last?.serial ?? 0)[board.name()])
        #expect(try decode(Board.self, state) == board.state)
    }

    @Test(
        "a differential test: random commits on a board of every shape, rebuilt after each, equal to the app's",
        arguments: [1 as UInt64, 2, 3, 42, 2026])
    func differential(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let bus = Flux(label: "exact.differential.\(seed)")
        let board = Substance<Board>(bus: bus)
        // A small ring: dropped entries fold into the starting states, which must stay exact.
        let journal = MixJournal(capacity: 40)
        bus.use(journal)
        var expected: [UInt64: Board] = [:]
        for round in 0..<300 {
            var next = board.state
            for _ in 0..<Int.random(in: 1...3, using: &random) { randomEdit(&next, &random) }
            let target = next
            let outcome = await ChainReaction().mix(board) { $0.prop = target }.reactAndWait()
            #expect(board.state == target)
            if outcome.changes.isEmpty { continue }
            let serial = try #require(journal.entries.last?.serial, "round \(round): the commit was not recorded yet")
            expected[serial] = target
        }
        let document = journal.document
        for entry in document.entries {
            guard let wanted = expected[entry.serial] else { continue }
            let rebuilt = try #require(document.states(after: entry.serial)[board.name()])
            #expect(try decode(Board.self, rebuilt) == wanted, "seed \(seed), mix #\(entry.serial)")
        }
        // The same through the JSON lines.
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        if let last = read.entries.last, let wanted = expected[last.serial] {
            #expect(try decode(Board.self, read.states(after: last.serial)[board.name()] ?? .null) == wanted)
        }
    }

    @Test(
        "folds into several substances' starts, one seen late, the document read meanwhile: every rebuilt state is the app's"
    )
    func differentialSeveral() async throws {
        var random = SeededRandom(seed: 7)
        let bus = Flux(label: "exact.several")
        let boards = [Substance<Board>(bus: bus), Substance<Board>(bus: bus)]
        let late = Substance<Board>(bus: bus)
        // A ring of 7: most mixes fold an entry, of either substance, into its start; the third
        // substance's start is added after the folds began.
        let journal = MixJournal(capacity: 7)
        bus.use(journal)
        var expected: [UInt64: [String: Board]] = [:]
        var documents: [MixJournal.Document] = []
        for round in 0..<200 {
            let pool = round < 100 ? boards : boards + [late]
            let board = pool[Int.random(in: 0..<pool.count, using: &random)]
            var next = board.state
            randomEdit(&next, &random)
            let target = next
            let outcome = await ChainReaction().mix(board) { $0.prop = target }.reactAndWait()
            // The starts shared with documents kept while the folds go on: each later fold
            // writes a copy of them.
            if round % 17 == 0 { documents.append(journal.document) }
            if outcome.changes.isEmpty { continue }
            let serial = try #require(journal.entries.last?.serial)
            expected[serial] = Dictionary(uniqueKeysWithValues: pool.map { ($0.name(), $0.state) })
        }
        #expect(documents.count == 12)
        // A document read earlier keeps the states of its time, whatever the folds did since (of
        // the substances the journal had seen commit by then).
        for held in documents {
            guard let last = held.entries.last?.serial, let wanted = expected[last] else { continue }
            let states = held.states(after: last)
            for (name, board) in wanted where held.startStates[name] != nil {
                #expect(try decode(Board.self, states[name] ?? .null) == board, "\(name), held, after mix #\(last)")
            }
        }
        let document = journal.document
        #expect(document.startStates.count == 3)
        for entry in document.entries {
            guard let wanted = expected[entry.serial] else { continue }
            let states = document.states(after: entry.serial)
            for (name, board) in wanted {
                #expect(try decode(Board.self, states[name] ?? .null) == board, "\(name) after mix #\(entry.serial)")
            }
        }
    }

    @Test(
        "a key set again and again as its entries drop folds to its last value: the starts stay exact, read at any moment",
        arguments: [5 as UInt64, 11, 2026])
    func foldOfOneKeySetAgain(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let bus = Flux(label: "exact.setAgain.\(seed)")
        let boards = [Substance<Board>(bus: bus), Substance<Board>(bus: bus)]
        // A ring of 3: every mix drops an entry. Runs of one key set again (a counter, a title
        // typed in) are what the fold holds back and replaces; the other edits, and the other
        // substance, must apply what it holds first.
        let journal = MixJournal(capacity: 3)
        bus.use(journal)
        var expected: [UInt64: [String: Board]] = [:]
        var documents: [(MixJournal.Document, UInt64)] = []
        var board = boards[0]
        for round in 0..<300 {
            if Int.random(in: 0..<8, using: &random) == 0 { board = boards[Int.random(in: 0..<2, using: &random)] }
            var next = board.state
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3: next.nested.count += 1
            case 4, 5: next.title = "title \(round)"
            case 6: next.level &+= 1
            case 7: next.order.append(round)
            case 8: next.selected = Bool.random(using: &random) ? nil : Board.Card(id: round, title: "s")
            default: randomEdit(&next, &random)
            }
            let target = next
            let outcome = await ChainReaction().mix(board) { $0.prop = target }.reactAndWait()
            if outcome.changes.isEmpty { continue }
            let serial = try #require(journal.entries.last?.serial)
            expected[serial] = Dictionary(uniqueKeysWithValues: boards.map { ($0.name(), $0.state) })
            if Int.random(in: 0..<13, using: &random) == 0 { documents.append((journal.document, serial)) }
        }
        #expect(documents.count > 10)
        documents.append((journal.document, try #require(journal.entries.last?.serial)))
        for (document, last) in documents {
            #expect(document.entries.last?.serial == last)
            // (A mix that changed nothing has an entry, and nothing to compare.)
            for entry in document.entries {
                guard let wanted = expected[entry.serial] else { continue }
                let states = document.states(after: entry.serial)
                for (name, board) in wanted where document.startStates[name] != nil {
                    let rebuilt = try decode(Board.self, states[name] ?? .null)
                    #expect(rebuilt == board, "\(name) after mix #\(entry.serial)")
                }
            }
        }
    }

    @Test(
        "a number or a Boolean kept as its bits is recorded, folded, written and rebuilt as the values it was",
        arguments: [3 as UInt64, 17, 2026])
    func numbersKeptAsBits(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        // Rings of 3: each mix drops an entry, and the fold holds back and replaces runs of one
        // key set again, kept as bits, between changes kept as values (the label, two keys) and
        // the meter's (another substance, another plan). The reference, on a bus and a journal
        // of its own, has its values kept as values (its states have a secret key).
        let (bus, journal) = journaledBus("exact.bits.\(seed)", capacity: 3)
        let (referenceBus, referenceJournal) = journaledBus("exact.bits.reference.\(seed)", capacity: 3)
        let gauges = Substance<Gauges>(name: "gauges", bus: bus)
        let meter = Substance<Meter>(name: "meter", bus: bus)
        let reference = Substance<SecretGauges>(name: "gauges", bus: referenceBus)
        let referenceMeter = Substance<SecretMeter>(name: "meter", bus: referenceBus)
        let doubles: [Double] = [
            .nan, -.nan, Double(nan: 7, signaling: false), 0, -0.0, 1, 2, 0.1, -1.5, .infinity, -.infinity,
            .greatestFiniteMagnitude, .leastNonzeroMagnitude, 1e300,
        ]
        let floats: [Float] = [.nan, -.nan, -0.0, 0.1, 3, .infinity, .leastNonzeroMagnitude]
        var documents: [(MixJournal.Document, MixJournal.Document)] = []
        var keptAsBits = 0
        // A reader off the bus all along, as a view's is: bits made values on its thread (under
        // the thread sanitizer, any race with the bus's recording shows).
        let reader = Task.detached {
            var reads = 0
            while !Task.isCancelled {
                _ = journal.document.states(after: journal.newestSerial ?? 0)
                reads += 1
                await Task.yield()
            }
            return reads
        }
        for round in 0..<300 {
            if Int.random(in: 0..<6, using: &random) == 0 {
                let level = Int.random(in: -3...3, using: &random)
                await ChainReaction().mix(meter) { $0.prop.level = level }.reactAndWait()
                await ChainReaction().mix(referenceMeter) { $0.prop.level = level }.reactAndWait()
            }
            var next = gauges.state
            let keys = Int.random(in: 0..<10, using: &random) == 0 ? 2 : 1
            for _ in 0..<keys {
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1: next.count = [Int.min, Int.max, -1, 0, round][Int.random(in: 0..<5, using: &random)]
                case 2: next.small = Int8.random(in: .min ... .max, using: &random)
                case 3: next.half = Int16.random(in: .min ... .max, using: &random)
                case 4: next.word = [UInt32.max, 0, UInt32(round)][Int.random(in: 0..<3, using: &random)]
                case 5: next.big = [UInt64.max, 0, UInt64(round) << 40][Int.random(in: 0..<3, using: &random)]
                case 6: next.ratio = doubles[Int.random(in: 0..<doubles.count, using: &random)]
                case 7: next.single = floats[Int.random(in: 0..<floats.count, using: &random)]
                case 8: next.on.toggle()
                default: next.label = "label \(round)"
                }
            }
            let target = next
            let mirrored = SecretGauges(target)
            let outcome = await ChainReaction().mix(gauges) { $0.prop = target }.reactAndWait()
            if let changes = outcome.changes.first, changes.count == 1, changes.changedBits(at: 0) != nil {
                keptAsBits += 1
            }
            await ChainReaction().mix(reference) { $0.prop = mirrored }.reactAndWait()
            if round == 150 {
                // Cleared mid-run, both: each starts again from the next mix.
                journal.clear()
                referenceJournal.clear()
            }
            if Int.random(in: 0..<11, using: &random) == 0 {
                documents.append((journal.document, referenceJournal.document))
            }
        }
        documents.append((journal.document, referenceJournal.document))
        reader.cancel()
        #expect(await reader.value > 0)
        #expect(documents.count > 10)
        // Most of the gauges' mixes changed one number: kept as bits (a mix of two keys, or of
        // the label, or that changed nothing, was not).
        #expect(keptAsBits > 150, "\(keptAsBits) of 300 kept as bits")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for (document, referenceDocument) in documents {
            // Each mix changed the same keys to the same values on both: recorded alike, as bits
            // and as values; and the states rebuilt after each, from the starts the fold kept,
            // are alike too.
            #expect(document.entries.count == referenceDocument.entries.count)
            for (entry, referenceEntry) in zip(document.entries, referenceDocument.entries) {
                let name = try #require(entry.changes.first?.substance)
                #expect(referenceEntry.changes.first?.substance == name)
                let bits = entry.changes.first?.values ?? []
                let values = referenceEntry.changes.first?.values ?? []
                #expect(try encoder.encode(bits) == encoder.encode(values), "mix #\(entry.serial)")
                for name in ["gauges", "meter"] {
                    guard let rebuilt = document.states(after: entry.serial)[name] else { continue }
                    guard
                        case .object(var fields) = try #require(
                            referenceDocument.states(after: referenceEntry.serial)[name])
                    else {
                        Issue.record("the reference's state is no object")
                        continue
                    }
                    fields["token"] = nil
                    #expect(
                        try encoder.encode(rebuilt) == encoder.encode(JournalValue.object(fields)),
                        "\(name) after mix #\(entry.serial)")
                }
            }
        }
        // And read back from the JSON lines as they were written.
        let readBack = try MixJournal.entries(fromJSONLines: journal.jsonLines())
        #expect(
            try encoder.encode(readBack.compactMap(\.changes.first?.values))
                == encoder.encode(journal.entries.compactMap(\.changes.first?.values)))
        // The last state rebuilt is the app's. (A `UInt64` past `Int.max` is recorded as
        // unrepresentable, kept as bits or not: the reference says so.)
        let last = try #require(journal.document.entries.last { $0.changes.first?.substance == "gauges" }?.serial)
        guard case .object(let rebuilt) = try #require(journal.document.states(after: last)["gauges"]) else {
            Issue.record("the gauges' state is no object")
            return
        }
        let app = gauges.state
        #expect(rebuilt["count"] == .int(app.count) && rebuilt["small"] == .int(Int(app.small)))
        #expect(rebuilt["half"] == .int(Int(app.half)) && rebuilt["word"] == .int(Int(app.word)))
        #expect(rebuilt["on"] == .bool(app.on) && rebuilt["label"] == .string(app.label))
        if app.big <= UInt64(Int.max) { #expect(rebuilt["big"] == .int(Int(app.big))) }
        if case .double(let ratio) = rebuilt["ratio"] {
            #expect(ratio.bitPattern == app.ratio.bitPattern || (ratio.isNaN && app.ratio.isNaN))
        } else {
            Issue.record("the ratio is no double: \(String(describing: rebuilt["ratio"]))")
        }
    }

    @Test("NaN and infinities anywhere in a state are recorded as numbers, in its start and in its changes")
    func nonFiniteNumbers() async throws {
        let (bus, journal) = journaledBus("exact.nonFinite", capacity: 100)
        let readings = Substance<Readings>(name: "readings", bus: bus)
        await ChainReaction().mix(readings) { $0.prop.point.y = .nan }.reactAndWait()
        await ChainReaction().mix(readings) { $0.prop.point.x = -.infinity }.reactAndWait()
        await ChainReaction().mix(readings) { $0.prop.samples = [1, .infinity] }.reactAndWait()
        await ChainReaction().mix(readings) { $0.prop.samples.append(.nan) }.reactAndWait()
        // A string of the state's own spelled like a mark the journal uses for them: a string.
        await ChainReaction().mix(readings) { $0.prop.label = "\u{1}flask.a+inf" }.reactAndWait()
        func check(_ document: MixJournal.Document, label: String, _ context: String) throws {
            let last = try #require(document.entries.last?.serial)
            guard case .object(let state) = try #require(document.states(after: last)["readings"]),
                case .object(let point) = try #require(state["point"]),
                case .double(let y) = try #require(point["y"]), case .double(let x) = try #require(point["x"])
            else {
                Issue.record("the state, or its point, is no object of doubles (\(context))")
                return
            }
            #expect(y.isNaN && x == -.infinity, "\(context)")
            guard case .array(let samples) = try #require(state["samples"]), samples.count == 3,
                case .double(let first) = samples[0], case .double(let second) = samples[1],
                case .double(let third) = samples[2]
            else {
                Issue.record(
                    "the samples are no array of three doubles (\(context)): \(String(describing: state["samples"]))")
                return
            }
            #expect(first == 1 && second == .infinity && third.isNaN, "\(context)")
            #expect(state["label"] == .string(label), "\(context)")
        }
        try check(journal.document, label: "\u{1}flask.a+inf", "from the start")
        // Cleared, the journal starts again from the state as it is, NaN and all (it was recorded
        // as unrepresentable whole, and so was every state rebuilt from it).
        journal.clear()
        await ChainReaction().mix(readings) { $0.prop.label = "again" }.reactAndWait()
        let document = journal.document
        #expect(document.startStates["readings"]?.isRepresentable == true)
        guard case .object(var start) = try #require(document.startStates["readings"]) else {
            Issue.record("the start is no object")
            return
        }
        #expect(start["label"] == .string("\u{1}flask.a+inf"))
        start["label"] = .string("again")
        let last = try #require(document.entries.last?.serial)
        let rebuilt = try #require(document.states(after: last)["readings"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(rebuilt) == encoder.encode(JournalValue.object(start)))
        try check(journal.document, label: "again", "after clear()")
        // Read as the state type, and replayed, NaN and all.
        let state = try rebuilt.decoded(as: Readings.self)
        #expect(state.point.y.isNaN && state.point.x == -.infinity && state.label == "again")
        #expect(state.samples.count == 3 && state.samples[1] == .infinity && state.samples[2].isNaN)
        let replayBus = Flux(label: "exact.nonFinite.replay")
        let fresh = Substance<Readings>(name: "readings", bus: replayBus)
        let replay = await MixJournal.replay(document, on: replayBus, substances: [fresh])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state.point.y.isNaN && fresh.state.samples[2].isNaN && fresh.state.label == "again")
    }

    @Test("a journal left on a bus keeps neither the bus nor the substances it saw alive")
    func journalHoldsNothingAlive() async throws {
        weak var weakBus: Flux?
        weak var weakGauges: Substance<Gauges>?
        let journal = MixJournal(capacity: 3)
        do {
            let bus = Flux(label: "exact.alive")
            bus.use(journal)
            let gauges = Substance<Gauges>(name: "gauges", bus: bus)
            for count in 1...5 {
                await ChainReaction().mix(gauges) { $0.prop.count = count }.reactAndWait()
            }
            // Once a later item has run, the bus holds nothing of the mixes before it.
            await bus.flush()
            weakBus = bus
            weakGauges = gauges
        }
        #expect(weakGauges == nil)
        // The bus's thread may still hold the bus for a moment after the flush: waited for, up to
        // two seconds. (A helper's review found the journal holding the last substance's
        // reference, which holds its bus, which holds the journal: never freed.)
        for _ in 0..<400 where weakBus != nil { try await Task.sleep(for: .milliseconds(5)) }
        #expect(weakBus == nil)
        #expect(journal.entries.count == 3)
    }

    @Test("substances made and freed in turn, at addresses used before: each has its start, and its states rebuild")
    func substancesAtReusedAddresses() async throws {
        let (bus, journal) = journaledBus("exact.reused", capacity: 100)
        for index in 0..<20 {
            // Freed at the end of each pass: the allocator gives the next one its address, mostly.
            let board = Substance<Board>(name: "exact.reused.\(index)", bus: bus)
            var target = board.state
            target.title = "board \(index)"
            await ChainReaction().mix(board) { [target] in $0.prop = target }.reactAndWait()
            let document = journal.document
            let serial = try #require(document.entries.last?.serial)
            #expect(document.startStates[board.name()] != nil, "no start for board \(index)")
            let rebuilt = try #require(document.states(after: serial)[board.name()], "board \(index)")
            #expect(try decode(Board.self, rebuilt) == target)
        }
    }

    @Test(
        "a substance made again under a name the journal saw starts again from its own state: rebuilt, folded, read back, replayed",
        arguments: [100, 2])
    func substanceMadeAgain(capacity: Int) async throws {
        let (bus, journal) = journaledBus("exact.again.\(capacity)", capacity: capacity)
        let name = "exact.again.screen.\(capacity)"
        var expected: [UInt64: Board] = [:]
        for round in 0..<4 {
            // A screen's substance, made again each time the screen opens: it starts from the
            // default board, not from where the one before left off.
            let board = Substance<Board>(name: name, bus: bus)
            var random = SeededRandom(seed: UInt64(round))
            for step in 0..<3 {
                var target = board.state
                if round == 0 { for _ in 0..<4 { randomEdit(&target, &random) } }
                target.title = "round \(round), step \(step)"
                let next = target
                await ChainReaction().mix(board) { $0.prop = next }.reactAndWait()
                expected[try #require(journal.entries.last?.serial)] = next
            }
        }
        let document = journal.document
        #expect(document.entries.flatMap(\.changes).filter { $0.start != nil }.count == (capacity == 100 ? 3 : 0))
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        for (source, kept) in [("document", document), ("JSON lines", read)] {
            for entry in kept.entries {
                let wanted = try #require(expected[entry.serial])
                let rebuilt = try #require(kept.states(after: entry.serial)[name], "\(source), mix #\(entry.serial)")
                #expect(try decode(Board.self, rebuilt) == wanted, "\(source), mix #\(entry.serial)")
            }
        }
        // Replayed into one substance of that name, from the default board.
        let replayBus = Flux(label: "exact.again.replay.\(capacity)")
        let fresh = Substance<Board>(name: name, bus: replayBus)
        let replay = await MixJournal.replay(document, on: replayBus, substances: [fresh])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state == expected[document.entries.last?.serial ?? 0])
    }

    @Test(
        "two substances alive under one name take it in turns: the name's state is the last committer's, rebuilt, read back and replayed"
    )
    func twoAliveUnderOneName() async throws {
        let (bus, journal) = journaledBus("exact.twins")
        let name = "exact.twins.window"
        // Two windows of one screen, open at once, made with the screen's one name.
        let left = Substance<Board>(name: name, bus: bus)
        let right = Substance<Board>(name: name, bus: bus)
        var expected: [UInt64: Board] = [:]
        var random = SeededRandom(seed: 7)
        for (step, window) in [left, right, left, left, right, left, right, right].enumerated() {
            var target = window.state
            randomEdit(&target, &random)
            target.title = "step \(step)"
            let next = target
            await ChainReaction().mix(window) { $0.prop = next }.reactAndWait()
            expected[try #require(journal.entries.last?.serial)] = next
        }
        let document = journal.document
        // The name changes hands at steps 1, 2, 4, 5 and 6: each starts again there.
        let startsAgain = document.entries.map { $0.changes.first?.start != nil }
        #expect(startsAgain == [false, true, true, false, true, true, true, false])
        let read = try MixJournal.Document(jsonLines: journal.jsonLines())
        for (source, kept) in [("document", document), ("JSON lines", read)] {
            for entry in kept.entries {
                let wanted = try #require(expected[entry.serial])
                let rebuilt = try #require(kept.states(after: entry.serial)[name], "\(source), mix #\(entry.serial)")
                #expect(try decode(Board.self, rebuilt) == wanted, "\(source), mix #\(entry.serial)")
            }
        }
        // Replayed into one substance of that name: it takes each committer's states in turn.
        let replayBus = Flux(label: "exact.twins.replay")
        let fresh = Substance<Board>(name: name, bus: replayBus)
        let replay = await MixJournal.replay(document, on: replayBus, substances: [fresh])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state == expected[document.entries.last?.serial ?? 0])
        _ = (left, right)
    }

    @Test("a substance made again that commits twice in its first mix starts again once, at its first commit")
    func substanceMadeAgainCommitsTwice() async throws {
        let (bus, journal) = journaledBus("exact.again.twice")
        let name = "exact.again.twice.screen"
        var first: Substance<Board>? = Substance<Board>(name: name, bus: bus)
        var edited = Board()
        edited.order = [1, 2, 3]
        edited.nested.count = 7
        await ChainReaction().mix(first!) { [edited] in $0.prop = edited }.reactAndWait()
        first = nil
        let again = Substance<Board>(name: name, bus: bus)
        var one = Board()
        one.title = "one"
        var two = one
        two.title = "two"
        _ = await bus.performAndWait(mix: "twice") { [one, two] in
            again.replaceState(with: one)
            again.replaceState(with: two)
        }
        let document = journal.document
        let last = try #require(document.entries.last)
        #expect(last.changes.map { $0.start != nil } == [true, false])
        #expect(try decode(Board.self, document.states(after: last.serial)[name] ?? .null) == two)
    }

    @Test("an awaited chain, undo and apply are in the journal when their await returns", .hangGuard)
    func recordedWhenAwaited() async {
        let (bus, journal) = journaledBus("exact.awaited")
        let board = Substance<Board>(bus: bus)
        let history = SubstanceHistory(of: board)
        for trial in 1...300 {
            await ChainReaction().mix(board) { $0.prop.nested.count = trial }.reactAndWait()
            #expect(journal.entries.count == 2 * trial - 1, "the chain of trial \(trial) was not recorded yet")
            await history.undo()
            #expect(journal.entries.count == 2 * trial, "the undo of trial \(trial) was not recorded yet")
            if journal.entries.count != 2 * trial { break }
        }
    }

    @Test(
        "a replay from the start states: after a restore it needs no setup; a chain step that changed nothing is no divergence"
    )
    func replayFromStartStates() async throws {
        let bus = Flux(label: "exact.replay")
        let first = Substance<Board>(name: "first", bus: bus)
        let second = Substance<Board>(name: "second", bus: bus)
        // As if restored from an archive: states the journal did not see being made.
        await ChainReaction().mix(first) { $0.prop.title = "restored" }.mix(second) { $0.prop.order = [9] }
            .reactAndWait()
        let journal = MixJournal()
        bus.use(journal)
        await ChainReaction().mix(first) { $0.prop.nested.count = 1 }.mix(second) { _ in }.reactAndWait()
        await ChainReaction().mix(first) { $0.prop.index["k"] = Board.Card(id: 1, title: "x") }.reactAndWait()
        let lines = journal.jsonLines()

        let replayBus = Flux(label: "exact.replay.fresh")
        let freshFirst = Substance<Board>(name: "first", bus: replayBus)
        let freshSecond = Substance<Board>(name: "second", bus: replayBus)
        let document = try MixJournal.Document(jsonLines: lines)
        let result = await MixJournal.replay(document, on: replayBus, substances: [freshFirst, freshSecond])
        #expect(result.reproducesRecording, "\(result)")
        #expect(freshFirst.state == first.state)
        // The journal never saw `second` change: it has no starting state for it, and the replay
        // leaves it as it is.
        #expect(freshSecond.state == Board())
        withExtendedLifetime(second) {}
    }
}
