import Archive
import FlaskTestSupport
import FlaskTesting
import Foundation
import Testing

struct Counted: Codable, Equatable {
    var counter = 0
    var text = ""
}

struct Catalog: Codable, Equatable {
    struct Item: Codable, Equatable {
        var id = 0
        var name = ""
    }

    var title = "catalog"
    var items: [Item] = []
    var limits: [String: Int] = ["default": 1]
}

/// Counts its decodings, to show that a restore decodes each archived value a bounded number of
/// times, however many values do not fit.
struct Tracked: Codable {
    static let decodings = Recorder<Int>()
    var id: Int

    init(id: Int) {
        self.id = id
    }

    init(from decoder: any Decoder) throws {
        Tracked.decodings.append(1)
        id = try decoder.singleValueContainer().decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(id)
    }
}

@Suite("Archiver restore: value by value, linear, nothing destroyed", .serialized)
struct ArchiveRestoreTests {
    func restore<T: Codable>(_ json: String, as type: T.Type, default value: T, store: InMemoryArchiveStore = .init())
        -> ArchiveRestoration<T>
    {
        try? store.set(Data(json.utf8), forKey: "k")
        return Archiver(store: store).restore(T.self, key: "k", defaultValue: value)
    }

    func defaulted(_ restoration: ArchiveRestoration<some Any>) -> [String]? {
        guard case .partiallyRestored(let defaulted, _)? = restoration.problems.first?.kind else { return nil }
        return defaulted
    }

    @Test(
        "one value that does not fit, numbers included, takes its default alone",
        arguments: [#"1.5"#, #"1e30"#, #"true"#, #""7""#, #"[1]"#, #"{"n":1}"#, #"null"#, #"-9223372036854775809"#])
    func oneMisfit(counter: String) {
        let restored = restore(#"{"counter":\#(counter),"text":"hi"}"#, as: Counted.self, default: Counted())
        #expect(restored.value == Counted(counter: 0, text: "hi"))
        #expect(defaulted(restored) == ["counter"])
    }

    @Test("numbers that hold an integer exactly restore as one", arguments: ["1.0", "1e2", "-0", "3.000"])
    func exactIntegers(counter: String) {
        let restored = restore(
            #"{"counter":\#(counter),"text":"hi","extra":[1.5]}"#, as: Counted.self, default: Counted())
        #expect(restored.value.text == "hi")
        #expect(restored.value.counter == Int(Double(counter)!))
    }

    @Test("array elements that do not fit are left out, the others kept in order")
    func arrayElements() throws {
        let items = (0..<1_000).map { #"{"id":\#($0),"name":"n\#($0)"}"# }
        let bad = Set(stride(from: 7, to: 1_000, by: 50))
        let json = items.enumerated().map { bad.contains($0.offset) ? #"{"id":"x","name":"bad"}"# : $0.element }
        let restored = restore(
            #"{"title":"kept","items":[\#(json.joined(separator: ","))],"limits":{"a":2}}"#, as: Catalog.self,
            default: Catalog())
        #expect(restored.value.title == "kept")
        #expect(restored.value.limits == ["a": 2])
        #expect(restored.value.items.map(\.id) == (0..<1_000).filter { !bad.contains($0) })
        #expect(defaulted(restored) == bad.sorted().map { "items.\($0) (left out)" })
    }

    @Test("a dictionary value that does not fit takes the default's value for its key, or is left out")
    func dictionaryValues() {
        let restored = restore(
            #"{"title":"t","items":[],"limits":{"default":"x","a":2,"b":"y"}}"#, as: Catalog.self, default: Catalog())
        #expect(restored.value.limits == ["default": 1, "a": 2])
        // A dictionary's keys are user data: not written (see "Restore reports hold no user data").
        #expect(Set(defaulted(restored) ?? []) == ["limits[…]", "limits[…] (left out)"])
    }

    @Test("a dictionary with Int or enumeration keys keeps its other entries when one value does not fit")
    func dictionaryKeysOtherThanStrings() throws {
        enum Shelf: String, Codable, CodingKeyRepresentable { case top, bottom }
        struct Counts: Codable, Equatable {
            var byNumber: [Int: Int] = [:]
            var byShelf: [Shelf: Int] = [:]
        }
        let restored = restore(
            #"{"byNumber":{"7":7,"8":"x","nine":9},"byShelf":{"top":1,"bottom":"y"}}"#, as: Counts.self,
            default: Counts())
        #expect(restored.value.byNumber == [7: 7])
        #expect(restored.value.byShelf == [.top: 1])
        // Such a dictionary round-trips through the archive encoder.
        let written = Counts(byNumber: [1: 2, -3: 4], byShelf: [.bottom: 5])
        let data = try ArchiveEncoder().encode(written)
        #expect(restore(String(decoding: data, as: UTF8.self), as: Counts.self, default: Counts()).value == written)
    }

    @Test("each archived value is decoded at most twice, however many do not fit")
    func linear() {
        struct Tracking: Codable {
            var entries: [String: Tracked] = [:]
            var list: [Tracked] = []
        }
        Tracked.decodings.removeAll()
        let count = 2_000
        var entries: [String] = []
        var list: [String] = []
        for index in 0..<count {
            // Every fifth value is a string: 400 misfits in each collection.
            let value = index % 5 == 0 ? #""bad""# : "\(index)"
            entries.append(#""e\#(index)":\#(value)"#)
            list.append(value)
        }
        let json = #"{"entries":{\#(entries.joined(separator: ","))},"list":[\#(list.joined(separator: ","))]}"#
        let restored = restore(json, as: Tracking.self, default: Tracking())
        #expect(restored.value.entries.count == count * 4 / 5)
        #expect(restored.value.list.count == count * 4 / 5)
        // One decoding per value by the tolerant decoder, and those of the strict attempt before it,
        // which stops at its first misfit.
        #expect(Tracked.decodings.count <= 2 * 2 * count)
    }

    @Test("a foreign value under the key in UserDefaults is kept aside as it is, reported, and survives writes")
    func foreignValue() throws {
        let suite = "flask.tests.foreign.\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let store = UserDefaultsArchiveStore(suiteName: suite)
        let archiver = Archiver(store: store)
        defaults.set("a string of the app's", forKey: "s")
        defaults.set(["nested": "dictionary", "n": 2] as [String: Any], forKey: "d")
        for (key, kind) in [("s", "String"), ("d", "Dictionary")] {
            let restored = archiver.restore(Counted.self, key: key, defaultValue: Counted())
            #expect(restored.value == Counted())
            #expect(restored.found)
            guard case .unreadable(let keptAt)? = restored.problems.first?.kind else {
                Issue.record("expected the value kept aside, got \(restored.problems)")
                continue
            }
            #expect(keptAt == "\(key).unreadable")
            #expect(restored.problems[0].reason.contains(kind))
            archiver.scheduleWrite(key: key, after: 0) { try ArchiveEncoder().encode(Counted(counter: 1)) }
            archiver.flush()
        }
        #expect(defaults.string(forKey: "s.unreadable") == "a string of the app's")
        #expect(defaults.dictionary(forKey: "d.unreadable")?["nested"] as? String == "dictionary")
        #expect(archiver.restore(Counted.self, key: "s", defaultValue: Counted()).value.counter == 1)
    }

    @Test("bytes kept aside at an earlier launch are not replaced by later ones")
    func keptAsideTwice() throws {
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        for (number, bytes) in ["first {", "second {"].enumerated() {
            try store.set(Data(bytes.utf8), forKey: "k")
            let restored = archiver.restore(Counted.self, key: "k", defaultValue: Counted())
            #expect(
                restored.problems.first?.kind == .unreadable(keptAt: number == 0 ? "k.unreadable" : "k.unreadable.2"))
        }
        #expect(try store.data(forKey: "k.unreadable") == Data("first {".utf8))
        #expect(try store.data(forKey: "k.unreadable.2") == Data("second {".utf8))
    }

    @Test("a key whose content could not be read is not written over until it is read or removed")
    func unreadableKeyIsProtected() throws {
        let store = InMemoryArchiveStore()
        try store.set(Data(#"{"counter":5,"text":"keep"}"#.utf8), forKey: "k")
        store.failsReads = true
        let archiver = Archiver(store: store)
        let restored = archiver.restore(Counted.self, key: "k", defaultValue: Counted())
        #expect(restored.problems.map(\.kind) == [.storeFailed(operation: "read")])
        store.failsReads = false
        let failures = Recorder<ArchiveProblem>()
        archiver.scheduleWrite(key: "k", after: 0, encode: { Data("{}".utf8) }, onFailure: { failures.append($0) })
        archiver.flush()
        #expect(failures.all.map(\.kind) == [.storeFailed(operation: "write")])
        #expect(stored(Counted.self, store, "k") == Counted(counter: 5, text: "keep"))
        // Read at last: the key may be written again.
        #expect(archiver.restore(Counted.self, key: "k", defaultValue: Counted()).value.counter == 5)
        archiver.scheduleWrite(key: "k", after: 0) { Data(#"{"counter":6,"text":""}"#.utf8) }
        archiver.flush()
        #expect(stored(Counted.self, store, "k")?.counter == 6)
        // Removed: likewise.
        store.failsReads = true
        _ = archiver.restore(Counted.self, key: "k", defaultValue: Counted())
        store.failsReads = false
        try archiver.remove(key: "k")
        archiver.scheduleWrite(key: "k", after: 0) { Data("{}".utf8) }
        archiver.flush()
        #expect(try store.data(forKey: "k") == Data("{}".utf8))
    }

    @Test("unreadable bytes that cannot be kept aside are not written over")
    func keepAsideFails() throws {
        let store = InMemoryArchiveStore()
        try store.set(Data("corrupt {".utf8), forKey: "k")
        store.failsWrites = true
        let archiver = Archiver(store: store)
        let restored = archiver.restore(Counted.self, key: "k", defaultValue: Counted())
        #expect(restored.problems.first?.reason.contains("could not keep it aside") == true)
        store.failsWrites = false
        archiver.scheduleWrite(key: "k", after: 0) { Data("{}".utf8) }
        archiver.flush()
        #expect(try store.data(forKey: "k") == Data("corrupt {".utf8))
    }

    @Test("a write pending for the key is performed before it is restored")
    func restoreAfterPendingWrite() {
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store, clock: ManualArchiveClock())
        archiver.scheduleWrite(key: "k", after: 3_600) { try ArchiveEncoder().encode(Counted(counter: 3)) }
        #expect(archiver.restore(Counted.self, key: "k", defaultValue: Counted()).value.counter == 3)
        #expect(archiver.pendingKeys.isEmpty)
    }

    @Test("a second live owner of a key is reported once; a claim lapses when its owner is freed")
    func keyInUse() {
        final class Owner {}
        let archiver = Archiver(store: InMemoryArchiveStore(), clock: ManualArchiveClock())
        var first: Owner? = Owner()
        var second: Owner? = Owner()
        #expect(archiver.restore(Counted.self, key: "k", defaultValue: Counted(), owner: first).problems.isEmpty)
        let problems = archiver.restore(Counted.self, key: "k", defaultValue: Counted(), owner: second).problems
        #expect(problems.map(\.kind) == [.keyInUse])
        #expect(problems.first?.description.contains("archive k ") == true)
        let reported = Recorder<ArchiveProblem>()
        let encode = { @Sendable in try ArchiveEncoder().encode(Counted(counter: 1)) }
        for _ in 0..<3 {
            archiver.scheduleWrite(
                key: "k", after: 1, owner: second, encode: encode, onFailure: { reported.append($0) })
            archiver.scheduleWrite(key: "k", after: 1, owner: first, encode: encode, onFailure: { reported.append($0) })
        }
        #expect(reported.count == 0, "each owner is reported once, when it claims the key")
        #expect(archiver.restore(Counted.self, key: "other", defaultValue: Counted(), owner: second).problems.isEmpty)
        first = nil
        var third: Owner? = Owner()
        let alongsideSecond = archiver.restore(Counted.self, key: "k", defaultValue: Counted(), owner: third)
        #expect(alongsideSecond.problems.map(\.kind) == [.keyInUse], "the second still lives")
        #expect(alongsideSecond.value.counter == 1, "the pending write was performed first")
        second = nil
        third = nil
        #expect(archiver.restore(Counted.self, key: "k", defaultValue: Counted(), owner: Owner()).problems.isEmpty)
    }
}
