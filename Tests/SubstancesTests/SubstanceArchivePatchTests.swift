import Archive
import FlaskTestSupport
import FluxBus
import Foundation
import Substances
import Testing

struct LedgerEntry: Codable, Equatable, Sendable {
    var title = ""
    var amount = 0
    var tags: [String] = []
}

struct PatchedState: State, Equatable {
    struct Info: Codable, Equatable, Sendable {
        struct Inner: Codable, Equatable, Sendable {
            var x = 0
            var note: String?
        }
        var name = ""
        var inner = Inner()
    }

    var entries: [String: LedgerEntry] = [:]
    var info = Info()
    var owner: LedgerEntry?
    var count = 0
    var maybe: Int?
    var list: [Int] = []
    var byNumber: [Int: String] = [:]
}

/// A state with `_` properties (internal state, which no change reports), at its level and in a
/// nested struct: archived by patches all the same (a client found it always written whole).
struct InternalsState: State, Equatable {
    struct Info: Codable, Equatable, Sendable {
        var name = ""
        var _seen = 0
    }
    var entries: [String: LedgerEntry] = [:]
    var info = Info()
    var count = 0
    var ratio = 0.0
    var _hidden = ""
    var _draft: Int?
}

/// A state whose hand-written encoding writes a key derived from two properties: not property by
/// property, so it is archived whole, every time.
struct DerivedState: State, Equatable {
    var price = 0
    var rate = 1
    var items: [String: Int] = [:]

    enum CodingKeys: String, CodingKey { case price, rate, items }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rate = try container.decode(Int.self, forKey: .rate)
        price = try container.decode(Int.self, forKey: .price) / max(rate, 1)
        items = try container.decode([String: Int].self, forKey: .items)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(price * rate, forKey: .price)
        try container.encode(rate, forKey: .rate)
        try container.encode(items, forKey: .items)
    }
}

/// The parsed JSON of `data`, for comparisons that ignore key order and spacing.
private func json(_ data: Data?) throws -> NSObject? {
    guard let data else { return nil }
    return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject
}

@Suite("Archived substances write what changed")
struct SubstanceArchivePatchTests {
    let directory = temporaryDirectory().appendingPathComponent("archives")

    private func logSize(_ store: FileArchiveStore, _ key: String) -> Int {
        (try? store.logSize(forKey: key)) ?? 0
    }

    @Test(
        "differential: after random commits, what the store reads is the state's encoding, by patches and compactions",
        arguments: [1, 2, 3])
    func differential(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        archiver.minimumPatchingBytes = 0
        archiver.minimumCompactionBytes = 3_000
        let bus = Flux()
        let ledger = Substance<PatchedState>(
            name: "ledger", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: bus)
        let key = ledger.archiveKey()
        var sawLog = false
        for round in 0..<300 {
            let choice = Int.random(in: 0..<12, using: &random)
            let id = "e\(Int.random(in: 0..<20, using: &random))"
            let number = Int.random(in: 0..<1_000, using: &random)
            await ledger.mixAndWait { state in
                switch choice {
                case 0: state.prop.entries[id] = LedgerEntry(title: "t\(number)", amount: number)
                case 1: state.prop.entries[id]?.amount = number
                case 2: state.prop.entries[id] = nil
                case 3: state.prop.info.name = "n\(number)"
                case 4: state.prop.info.inner.x = number
                case 5: state.prop.info.inner.note = number % 2 == 0 ? nil : "note \(number)"
                case 6: state.prop.owner = number % 3 == 0 ? nil : LedgerEntry(title: "o", amount: number)
                case 7: state.prop.owner?.tags.append("\(number)")
                case 8: state.prop.maybe = number % 2 == 0 ? nil : number
                case 9: state.prop.list.append(number)
                case 10: state.prop.byNumber[number % 5] = number % 2 == 0 ? nil : "\(number)"
                default:
                    state.prop.count += 1
                    state.prop.entries[id, default: LedgerEntry()].tags.append("#\(number)")
                }
            }
            if round % 7 == 0 || round == 299 {
                try await ledger.stored()
                sawLog = sawLog || logSize(store, key) > 0
                #expect(
                    try json(store.data(forKey: key)) == json(ArchiveEncoder().encode(ledger.state)),
                    "round \(round)")
            }
        }
        archiver.waitForCompactions()
        #expect(sawLog, "the writes were patches")
        #expect(try json(store.data(forKey: key)) == json(ArchiveEncoder().encode(ledger.state)))
        // Another process restores exactly what this one holds.
        let expected = ledger.state
        let restoredBy = Archiver(store: try FileArchiveStore(directory: directory))
        let restored = restoredBy.restore(PatchedState.self, key: key, defaultValue: PatchedState())
        #expect(restored.problems.isEmpty)
        #expect(restored.value == expected)
    }

    @Test(
        "a state with _ properties is patched too: each patch sets them, and what the store reads is the state's encoding",
        arguments: [4, 5])
    func internalsArePatched(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        archiver.minimumPatchingBytes = 0
        archiver.minimumCompactionBytes = 3_000
        let notes = Substance<InternalsState>(
            name: "internals", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver),
            bus: Flux())
        let key = notes.archiveKey()
        await notes.mixAndWait { state in
            for index in 0..<200 { state.prop.entries["e\(index)"] = LedgerEntry(title: "entry \(index)") }
        }
        try await notes.stored()
        let snapshot = try Data(contentsOf: store.fileURL(forKey: key))
        // One entry's edit: a patch of that entry and the `_` properties, not the state.
        await notes.mixAndWait { $0.prop.entries["e7"]?.amount = 5 }
        try await notes.stored()
        let log = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: store.fileURL(forKey: key).path + ".log")), as: UTF8.self)
        let entry = #"{"ops":[{"set":["entries","e7"],"v":{"title":"entry 7","amount":5,"tags":[]}}"#
        #expect(log.hasPrefix(entry), "\(log)")
        #expect(log.contains(#"{"set":["_hidden"],"v":""}"#) && log.contains(#"{"remove":["_draft"]}"#), "\(log)")
        #expect(log.contains(#"{"set":["info","_seen"],"v":0}"#), "\(log)")
        #expect(try Data(contentsOf: store.fileURL(forKey: key)) == snapshot)
        // A commit of `_` properties alone (no change a reaction sees): a patch of them.
        await notes.mixAndWait { $0.prop._hidden = "only" }
        try await notes.stored()
        let afterHidden = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: store.fileURL(forKey: key).path + ".log")), as: UTF8.self)
        #expect(afterHidden.split(separator: "\n").count == 2, "\(afterHidden)")
        #expect(
            afterHidden.hasSuffix(
                #"{"ops":[{"set":["info","_seen"],"v":0},{"set":["_hidden"],"v":"only"},"#
                    + #"{"remove":["_draft"]}]}"# + "\n"), "\(afterHidden)")
        #expect(try Data(contentsOf: store.fileURL(forKey: key)) == snapshot)
        // NaN and the infinities, patched as a whole write writes them.
        for (ratio, text) in [(Double.nan, #""NaN""#), (.infinity, #""Infinity""#), (-.infinity, #""-Infinity""#)] {
            await notes.mixAndWait { $0.prop.ratio = ratio }
            try await notes.stored()
            let lines = try String(
                decoding: Data(contentsOf: URL(fileURLWithPath: store.fileURL(forKey: key).path + ".log")),
                as: UTF8.self)
            let last = lines.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.contains(#"{"set":["ratio"],"v":"# + text + "}"), "\(last)")
            let data = try #require(try store.data(forKey: key))
            let read = try ArchiveEncoder.decoder().decode(InternalsState.self, from: data)
            #expect(ratio.isNaN ? read.ratio.isNaN : read.ratio == ratio)
        }
        await notes.mixAndWait { $0.prop.ratio = 1.5 }
        for round in 0..<200 {
            let choice = Int.random(in: 0..<7, using: &random)
            let id = "e\(Int.random(in: 0..<20, using: &random))"
            let number = Int.random(in: 0..<1_000, using: &random)
            await notes.mixAndWait { state in
                switch choice {
                case 0: state.prop.entries[id]?.amount = number
                case 1: state.prop._hidden = "h\(number)"  // changes nothing a reaction sees
                case 2: state.prop._draft = number % 2 == 0 ? nil : number
                case 3: state.prop.info._seen = number
                case 4:
                    state.prop.info.name = "n\(number)"
                    state.prop.info._seen += 1
                case 5: state.prop.entries[id] = nil
                default:
                    state.prop.count += 1
                    state.prop._hidden += "!"
                }
            }
            if round % 9 == 0 || round == 199 {
                try await notes.stored()
                #expect(
                    try json(store.data(forKey: key)) == json(ArchiveEncoder().encode(notes.state)),
                    "round \(round)")
            }
        }
        archiver.waitForCompactions()
        let expected = notes.state
        let restored = Archiver(store: try FileArchiveStore(directory: directory))
            .restore(InternalsState.self, key: key, defaultValue: InternalsState())
        #expect(restored.problems.isEmpty)
        #expect(restored.value == expected)
    }

    @Test("a one-entry edit of a 20,000-entry dictionary appends that entry, not the dictionary")
    func costOfTheChange() async throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        let ledger = Substance<PatchedState>(
            name: "big", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: Flux())
        await ledger.mixAndWait { state in
            for index in 0..<20_000 { state.prop.entries["e\(index)"] = LedgerEntry(title: "entry \(index)") }
        }
        try await ledger.stored()
        let key = ledger.archiveKey()
        let snapshot = try Data(contentsOf: store.fileURL(forKey: key))
        #expect(snapshot.count > 400_000)
        await ledger.mixAndWait { $0.prop.entries["e123"]?.amount = 5 }
        try await ledger.stored()
        let log = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: store.fileURL(forKey: key).path + ".log")), as: UTF8.self)
        #expect(log == #"{"ops":[{"set":["entries","e123"],"v":{"title":"entry 123","amount":5,"tags":[]}}]}"# + "\n")
        #expect(try Data(contentsOf: store.fileURL(forKey: key)) == snapshot)
        #expect(stored(PatchedState.self, store, key)?.entries["e123"]?.amount == 5)
    }

    @Test("a state whose encoding is not property by property is archived whole, and exactly")
    func derivedEncodingGoesWhole() async throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        archiver.minimumPatchingBytes = 0
        let prices = Substance<DerivedState>(
            name: "prices", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: Flux())
        let key = prices.archiveKey()
        await prices.mixAndWait {
            $0.prop.price = 10
            $0.prop.rate = 3
        }
        try await prices.stored()
        await prices.mixAndWait { $0.prop.rate = 1 }
        try await prices.stored()
        await prices.mixAndWait { $0.prop.items["a"] = 1 }
        try await prices.stored()
        #expect(logSize(store, key) == 0)
        #expect(try json(store.data(forKey: key)) == json(Data(#"{"price":10,"rate":1,"items":{"a":1}}"#.utf8)))
    }

    @Test("archiveNow writes whole, and the patches after it continue it")
    func archiveNowThenPatches() async throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        archiver.minimumPatchingBytes = 0
        let ledger = Substance<PatchedState>(
            name: "now", archive: false, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: Flux())
        await ledger.mixAndWait { $0.prop.entries["a"] = LedgerEntry(title: "a") }
        try await ledger.archiveNowAndWait()
        ledger.shouldArchive = true
        await ledger.mixAndWait { $0.prop.entries["b"] = LedgerEntry(title: "b") }
        try await ledger.stored()
        await ledger.mixAndWait { $0.prop.entries["a"] = nil }
        try await ledger.stored()
        #expect(logSize(store, ledger.archiveKey()) > 0)
        #expect(stored(PatchedState.self, store, ledger.archiveKey()) == ledger.state)
    }

    @Test("a state whose JSON is under minimumPatchingBytes is written whole; past it, patched")
    func smallStatesWhole() async throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        archiver.minimumPatchingBytes = 2_000
        let ledger = Substance<PatchedState>(
            name: "small", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: Flux())
        let key = ledger.archiveKey()
        for round in 0..<3 {
            await ledger.mixAndWait { $0.prop.entries["e\(round)"] = LedgerEntry(title: "small") }
            try await ledger.stored()
        }
        #expect(logSize(store, key) == 0, "a small state's writes are whole")
        // Past the size: the next write is whole (it learns the size), the ones after are patches.
        await ledger.mixAndWait { state in
            for index in 0..<100 { state.prop.entries["big\(index)"] = LedgerEntry(title: "entry \(index)") }
        }
        try await ledger.stored()
        await ledger.mixAndWait { $0.prop.entries["big7"]?.amount = 7 }
        try await ledger.stored()
        #expect(logSize(store, key) > 0)
        #expect(stored(PatchedState.self, store, key) == ledger.state)
    }
}

/// Decodes what `store` holds under `key` as `T`, or nil.
private func stored<T: Decodable>(_ type: T.Type, _ store: any ArchiveStore, _ key: String) -> T? {
    guard let data = try? store.data(forKey: key) else { return nil }
    return try? ArchiveEncoder.decoder().decode(T.self, from: data)
}

/// `PatchedState`'s ledger as big collections: archives of either restore into the other.
struct BigLedgerState: State, Equatable {
    var entries: BigDictionary<String, LedgerEntry> = [:]
    var list: BigArray<Int> = []
    var count = 0
}

/// A big dictionary beside an internal property (a client's state whose `_`-only commits were
/// never patched).
struct BigInternalsState: State, Equatable {
    var cards: BigDictionary<String, LedgerEntry> = [:]
    var _hidden = ""
}

struct PlainLedgerState: State, Equatable {
    var entries: [String: LedgerEntry] = [:]
    var list: [Int] = []
    var count = 0
}

@Suite("Big collections in archives")
struct BigCollectionArchiveTests {
    let directory = temporaryDirectory().appendingPathComponent("archives")

    @Test("commits of a _ property alone beside a big dictionary are patches of it")
    func internalBesideBigDictionary() async throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        let cards = Substance<BigInternalsState>(
            name: "cards", archive: true,
            archiveSettings: ArchiveSettings(delay: 0.01, maxDelay: 0.05, archiver: archiver),
            bus: Flux())
        let key = cards.archiveKey()
        await cards.mixAndWait { state in
            state.prop.cards = BigDictionary(
                Dictionary(uniqueKeysWithValues: (0..<500).map { ("c\($0)", LedgerEntry(title: "t\($0)", amount: $0)) })
            )
        }
        try await cards.stored()
        for round in 0..<5 {
            await cards.mixAndWait { $0.prop._hidden = "h\(round)" }
            try await cards.stored()
        }
        let log = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: store.fileURL(forKey: key).path + ".log")), as: UTF8.self)
        #expect(
            log.split(separator: "\n").map(String.init)
                == (0..<5).map { #"{"ops":[{"set":["_hidden"],"v":"h\#($0)"}]}"# })
        #expect(stored(BigInternalsState.self, store, key) == cards.state)
    }

    @Test(
        "an outcome's stored() waits for a commit of _ properties alone: unchanged to reactions, archived all the same")
    func outcomeOfInternalsIsStored() async throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        // A long delay: only what `stored()` waits for is written.
        let cards = Substance<BigInternalsState>(
            name: "cards", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: Flux())
        let key = cards.archiveKey()
        await cards.mixAndWait { $0.prop.cards = ["c": LedgerEntry(title: "c")] }
        try await cards.stored()
        let outcome = await cards.bus.performAndWait(mix: "hide") { [cards] in
            cards.beginTransaction()
            cards.prop._hidden = "acknowledged"
            if let changes = cards.commitTransaction() { cards.deliver(changes, lock: nil) }
        }
        #expect(outcome.wasApplied && outcome.changes.isEmpty)
        try await outcome.stored()
        #expect(stored(BigInternalsState.self, store, key)?._hidden == "acknowledged")
    }

    @Test("a one-entry edit of a big dictionary appends that entry; plain and big archives restore into each other")
    func patchesAndRestores() async throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        let ledger = Substance<BigLedgerState>(
            name: "ledger", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: Flux())
        let key = ledger.archiveKey()
        await ledger.mixAndWait { state in
            state.prop.entries = BigDictionary(
                Dictionary(uniqueKeysWithValues: (0..<20_000).map { ("e\($0)", LedgerEntry(title: "entry \($0)")) }))
            state.prop.list = BigArray(0..<100)
        }
        try await ledger.stored()
        await ledger.mixAndWait { $0.prop.entries["e123"]?.amount = 5 }
        try await ledger.stored()
        let log = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: store.fileURL(forKey: key).path + ".log")), as: UTF8.self)
        #expect(log == #"{"ops":[{"set":["entries","e123"],"v":{"title":"entry 123","amount":5,"tags":[]}}]}"# + "\n")
        await ledger.mixAndWait { state in
            state.prop.entries["e7"] = nil
            state.prop.list.append(100)
        }
        try await ledger.stored()
        // Restored as written, and as plain collections.
        let reader = Archiver(store: try FileArchiveStore(directory: directory))
        let big = reader.restore(BigLedgerState.self, key: key, defaultValue: BigLedgerState())
        #expect(big.problems.isEmpty)
        #expect(big.value == ledger.state)
        let plain = reader.restore(PlainLedgerState.self, key: key, defaultValue: PlainLedgerState())
        #expect(plain.problems.isEmpty)
        #expect(plain.value.entries == ledger.state.entries.dictionary)
        #expect(plain.value.list == Array(0...100))
        #expect(plain.value.entries["e123"]?.amount == 5 && plain.value.entries["e7"] == nil)
        // And a plain archive restores into big collections.
        let plainLedger = Substance<PlainLedgerState>(
            name: "plain", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: archiver), bus: Flux())
        await plainLedger.mixAndWait { state in
            state.prop.entries = ["a": LedgerEntry(title: "a", amount: 1)]
            state.prop.list = [3, 2, 1]
        }
        try await plainLedger.stored()
        let fromPlain = reader.restore(
            BigLedgerState.self, key: plainLedger.archiveKey(), defaultValue: BigLedgerState())
        #expect(fromPlain.problems.isEmpty)
        #expect(fromPlain.value.entries.dictionary == plainLedger.state.entries)
        #expect(fromPlain.value.list.array == [3, 2, 1])
    }
}
