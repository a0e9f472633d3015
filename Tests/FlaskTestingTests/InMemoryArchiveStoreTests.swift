import Archive
import FlaskTestSupport
import FlaskTesting
import FluxBus
import Foundation
import Substances
import Testing

@Suite("InMemoryArchiveStore")
struct InMemoryArchiveStoreTests {
    @Test("stores, reads, removes, and records each write and attempt in order")
    func storesAndRecords() throws {
        let store = InMemoryArchiveStore(contents: ["a": Data("1".utf8)])
        #expect(try store.data(forKey: "a") == Data("1".utf8))
        try store.set(Data("2".utf8), forKey: "b")
        try store.copyValue(forKey: "b", to: "c")
        try store.removeData(forKey: "a")
        #expect(try store.data(forKey: "a") == nil)
        #expect(store.contents == ["b": Data("2".utf8), "c": Data("2".utf8)])
        #expect(store.writes == ["b", "c"])
        #expect(store.attempts == ["b", "c"])
    }

    @Test("failing writes store nothing and are recorded as attempts; failing reads throw")
    func failures() throws {
        let store = InMemoryArchiveStore()
        store.failsWrites = true
        #expect(throws: CocoaError.self) { try store.set(Data("x".utf8), forKey: "k") }
        #expect(store.contents.isEmpty && store.writes.isEmpty && store.attempts == ["k"])
        store.failsWrites = false
        try store.set(Data("y".utf8), forKey: "k")
        store.failsReads = true
        #expect(throws: CocoaError.self) { try store.data(forKey: "k") }
        store.failsReads = false
        #expect(try store.data(forKey: "k") == Data("y".utf8))
    }

    @Test("its callbacks run at each attempt and after each write, outside its lock")
    func callbacks() throws {
        let store = InMemoryArchiveStore()
        let events = Recorder<String>()
        // Each callback reads the store: it would deadlock if the store held its lock.
        store.whenAttempted { events.append("attempt \(store.attempts.count)") }
        store.whenWritten { events.append("written \(store.writes.count)") }
        try store.set(Data(), forKey: "a")
        store.failsWrites = true
        _ = try? store.set(Data(), forKey: "b")
        store.whenAttempted(nil)
        store.whenWritten(nil)
        store.failsWrites = false
        try store.set(Data(), forKey: "c")
        #expect(events.all == ["attempt 0", "written 1", "attempt 1"])
    }

    @Test("threads write at once, and every write is kept")
    func concurrentWrites() async {
        let store = InMemoryArchiveStore()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for index in 0..<100 { try? store.set(Data([UInt8(index)]), forKey: "\(thread).\(index)") }
                }
            }
        }
        #expect(store.contents.count == 800 && store.writes.count == 800 && store.attempts.count == 800)
    }

    @Test("an archiver with it and a manual clock writes a substance's state when the clock says so")
    func archivesASubstance() async throws {
        struct Draft: State {
            var text = ""
        }
        let store = InMemoryArchiveStore()
        let clock = ManualArchiveClock()
        let archiver = Archiver(store: store, clock: clock)
        let draft = Substance<Draft>(
            name: "draft-\(UUID().uuidString)", archive: true,
            archiveSettings: ArchiveSettings(delay: 2, archiver: archiver), bus: Flux())
        await draft.mixAndWait { $0.prop.text = "hello" }
        archiver.waitForWritesInProgress()
        #expect(store.writes.isEmpty)
        clock.advance(by: .seconds(2))
        archiver.waitForWritesInProgress()
        #expect(store.writes == [draft.archiveKey()])
    }
}
