import Archive
import FlaskTestSupport
import FlaskTesting
import Foundation
import Synchronization
import Testing

struct Settings: Codable, Equatable {
    var volume = 5
    var name = "default"
    var nested = Nested()
    var tags: [String] = []

    struct Nested: Codable, Equatable {
        var flag = false
        var level = 1
    }
}

@Suite("Archiver: restore, debounce, flush")
struct ArchiverTests {
    @Test("a value round-trips; a missing key restores the default without a problem")
    func roundTrip() throws {
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        let missing = archiver.restore(Settings.self, key: "k", defaultValue: Settings())
        #expect(!missing.found && missing.problems.isEmpty && missing.value == Settings())
        var value = Settings()
        value.volume = 9
        value.nested.level = 3
        try archiver.write(JSONEncoder().encode(value), key: "k")
        let restored = archiver.restore(Settings.self, key: "k", defaultValue: Settings())
        #expect(restored.found && restored.problems.isEmpty && restored.value == value)
    }

    @Test(
        "an archive of another shape restores every property it still can",
        arguments: [
            // A property added since (tags missing), one removed (old), one renamed (title -> name).
            (#"{"volume": 7, "nested": {"flag": true, "level": 4}, "old": 1, "title": "x"}"#, 7, "default", true, 4),
            // A property whose type changed: volume was a string.
            (
                #"{"volume": "loud", "name": "kept", "nested": {"flag": true, "level": 2}, "tags": []}"#, 5, "kept",
                true, 2
            ),
            // A nested property of the wrong type defaults alone.
            (#"{"volume": 8, "name": "n", "nested": {"flag": "yes", "level": 6}, "tags": ["a"]}"#, 8, "n", false, 6),
        ])
    func schemaEvolution(json: String, volume: Int, name: String, flag: Bool, level: Int) throws {
        let store = InMemoryArchiveStore()
        try store.set(Data(json.utf8), forKey: "k")
        let restored = Archiver(store: store).restore(Settings.self, key: "k", defaultValue: Settings())
        #expect(restored.value.volume == volume)
        #expect(restored.value.name == name)
        #expect(restored.value.nested.flag == flag)
        #expect(restored.value.nested.level == level)
        guard case .partiallyRestored(_, let keptAt)? = restored.problems.first?.kind else {
            Issue.record("expected a partial restore, got \(restored.problems)")
            return
        }
        #expect(try store.data(forKey: keptAt) == Data(json.utf8))
    }

    @Test(
        "corrupt bytes restore the default, are kept aside, and are reported",
        arguments: [
            Data(), Data("{\"volume\": 3, \"na".utf8), Data("not json at all".utf8),
            Data((0..<512).map { _ in UInt8.random(in: 0...255) }),
        ])
    func corrupt(bytes: Data) throws {
        let store = InMemoryArchiveStore()
        try store.set(bytes, forKey: "k")
        let restored = Archiver(store: store).restore(Settings.self, key: "k", defaultValue: Settings())
        #expect(restored.value == Settings())
        #expect(restored.problems.count == 1)
        guard case .unreadable(let keptAt)? = restored.problems.first?.kind else {
            Issue.record("expected unreadable, got \(restored.problems)")
            return
        }
        #expect(try store.data(forKey: keptAt) == bytes)
        #expect(!restored.problems[0].description.contains("volume\": 3"))
    }

    @Test("flush writes pending values now; remove drops a pending write")
    func flushAndRemove() throws {
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        archiver.scheduleWrite(key: "a", after: 3600) { try JSONEncoder().encode(Settings()) }
        archiver.scheduleWrite(key: "b", after: 3600) { try JSONEncoder().encode(Settings()) }
        #expect(archiver.pendingKeys == ["a", "b"])
        try archiver.remove(key: "b")
        archiver.flush()
        #expect(store.writes == ["a"])
        #expect(archiver.pendingKeys.isEmpty)
        #expect(try store.data(forKey: "b") == nil)
    }

    @Test("flush returns after writes whose delay just ran out, however the timer and the flush interleave")
    func flushRacesWakeUps() {
        // A write taken from the pending ones by its wake-up, and not yet on the worker, used to be
        // missed by a flush in between: neither pending nor stored when the flush returned.
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        for round in 0..<300 {
            let keys = (0..<4).map { "r\(round).k\($0)" }
            for key in keys { archiver.scheduleWrite(key: key, after: 0) { Data(key.utf8) } }
            archiver.flush()
            let stored = Set(store.writes)
            #expect(keys.allSatisfy(stored.contains), "round \(round): \(keys.filter { !stored.contains($0) }) missing")
            if !keys.allSatisfy(stored.contains) { break }
        }
    }

    @Test("stored(key:) writes a pending value now and returns once it is stored; with nothing pending, at once")
    func storedWritesNow() async throws {
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        try await archiver.stored(key: "nothing")
        #expect(store.writes.isEmpty)
        archiver.scheduleWrite(key: "a", after: 3600) { Data("1".utf8) }
        try await archiver.stored(key: "a")
        #expect(store.writes == ["a"])
        #expect(try store.data(forKey: "a") == Data("1".utf8))
        #expect(archiver.pendingKeys.isEmpty)
        // One caller told at once (nothing pending), one by a write, then one more at once: the
        // write answered one caller, not three.
        #expect(
            archiver.durabilityStatistics
                == ArchiveDurabilityStatistics(writes: 1, acknowledged: 2, acknowledgedWithoutWrite: 1))
        try await archiver.stored(key: "a")
        let statistics = archiver.durabilityStatistics
        #expect(statistics.acknowledgedPerWrite == 1)
        #expect(
            statistics.description
                == "3 acknowledgements in 1 durable writes (1.0 per write), 2 with nothing left to write")
    }

    @Test("callers that ask while a write is under way share the next one (group commit)")
    func groupCommit() async throws {
        let store = InMemoryArchiveStore()
        // A manual clock: no wake-up of the debounce writes anything behind the test's back. An
        // archive thread of its own: the write held up does not hold up the other tests' archivers.
        let archiver = Archiver(store: store, clock: ManualArchiveClock(), ownThread: ())
        let firstWriteStarted = DispatchSemaphore(value: 0)
        let releaseFirstWrite = DispatchSemaphore(value: 0)
        let attempts = Mutex(0)
        store.whenAttempted {
            let attempt = attempts.withLock { attempt in
                attempt += 1
                return attempt
            }
            if attempt == 1 {
                firstWriteStarted.signal()
                releaseFirstWrite.wait()
            }
        }
        archiver.scheduleWrite(key: "k", after: 3600) { Data("1".utf8) }
        let first = Task { try await archiver.stored(key: "k") }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                firstWriteStarted.wait()
                continuation.resume()
            }
        }
        // The first write is under way: 20 callers commit and ask meanwhile.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in 2...21 {
                archiver.scheduleWrite(key: "k", after: 3600) { Data("\(value)".utf8) }
                group.addTask { try await archiver.stored(key: "k") }
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while archiver.durableCallers(of: "k") < 21, ContinuousClock.now < deadline { await Task.yield() }
            #expect(archiver.durableCallers(of: "k") == 21)
            releaseFirstWrite.signal()
            try await group.waitForAll()
        }
        try await first.value
        #expect(store.writes == ["k", "k"], "one write for the first caller, one for the 20 that came meanwhile")
        #expect(try store.data(forKey: "k") == Data("21".utf8))
        #expect(archiver.durabilityStatistics == ArchiveDurabilityStatistics(writes: 2, acknowledged: 21))
        #expect(archiver.durabilityStatistics.acknowledgedPerWrite == 10.5)
    }

    @Test("a stored(key:) whose write fails throws its problem; the write stays pending and is retried")
    func storedFails() async throws {
        let store = InMemoryArchiveStore()
        store.failsWrites = true
        let archiver = Archiver(store: store)
        archiver.scheduleWrite(key: "k", after: 3600) { Data("1".utf8) }
        await #expect(throws: ArchiveProblem.self) { try await archiver.stored(key: "k") }
        #expect(archiver.pendingKeys == ["k"])
        store.failsWrites = false
        try await archiver.stored(key: "k")
        #expect(try store.data(forKey: "k") == Data("1".utf8))
    }

    @Test("a key scheduled again after its write was flushed or removed is pending again, with its new value")
    func keyScheduledAgain() throws {
        // The archiver keeps the last key it scheduled at hand; a write taken out (flushed,
        // removed, or performed by its timer, which takes it out the same way) must not be updated
        // through it any more.
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        let encode = { (text: String) in { @Sendable in Data(text.utf8) } }
        archiver.scheduleWrite(key: "a", after: 3600, encode: encode("a1"))
        archiver.scheduleWrite(key: "b", after: 3600, encode: encode("b1"))
        archiver.scheduleWrite(key: "a", after: 3600, encode: encode("a2"))
        archiver.flush()
        #expect(try store.data(forKey: "a") == Data("a2".utf8))
        #expect(try store.data(forKey: "b") == Data("b1".utf8))
        archiver.scheduleWrite(key: "a", after: 3600, encode: encode("a3"))
        #expect(archiver.pendingKeys == ["a"])
        try archiver.remove(key: "a")
        archiver.scheduleWrite(key: "a", after: 3600, encode: encode("a4"))
        #expect(archiver.pendingKeys == ["a"])
        archiver.flush()
        #expect(try store.data(forKey: "a") == Data("a4".utf8))
    }

    @Test("a failing store is reported, not thrown at the caller")
    func failingStore() {
        let store = InMemoryArchiveStore()
        store.failsWrites = true
        let archiver = Archiver(store: store)
        let problems = Recorder<ArchiveProblem>()
        archiver.scheduleWrite(key: "k", after: 3600, encode: { Data() }, onFailure: { problems.append($0) })
        archiver.flush()
        #expect(problems.all.map(\.kind) == [.storeFailed(operation: "write")])
    }
}

@Suite("Restore reports hold no user data")
struct RestoreRedactionTests {
    struct Tokens: Codable, Equatable {
        var tokens: [String: Int] = [:]
        var count = 0
    }

    @Test("a dictionary's keys are never written in a restore path: tokens[…], with a count")
    func dictionaryKeysRedacted() throws {
        let archiver = Archiver(store: InMemoryArchiveStore())
        let json = #"{"tokens": {"tok-SECRET-abc": "x", "tok-SECRET-def": "y", "fine": 1}, "count": 2}"#
        try archiver.write(Data(json.utf8), key: "k")
        let restored = archiver.restore(Tokens.self, key: "k", defaultValue: Tokens())
        #expect(restored.value == Tokens(tokens: ["fine": 1], count: 2))
        let problem = try #require(restored.problems.first)
        guard case .partiallyRestored(let defaulted, _) = problem.kind else {
            Issue.record("expected a partial restore, got \(problem)")
            return
        }
        #expect(defaulted == ["tokens[…] (left out) ×2"])
        #expect(!problem.description.contains("SECRET"), "\(problem)")
    }
}

extension ArchiverTests {
    /// What a write's encoding captured: released once the write is done.
    final class Captured: Sendable {}

    @Test("a write's value is released once it is written, by a timed write and a durable one")
    func writtenValueReleased() async throws {
        // The archive thread's loop leaked every batch of jobs in release builds (a loop that never
        // exits is a dead end to the optimizer, which left out the releases): each write's
        // closure, and the state it captured, stayed in memory for good.
        let archiver = Archiver(store: InMemoryArchiveStore())
        weak var timed: Captured?
        weak var durable: Captured?
        do {
            let first = Captured()
            timed = first
            archiver.scheduleWrite(key: "timed", after: 0) { [first] in
                _ = first
                return Data("1".utf8)
            }
            let second = Captured()
            durable = second
            archiver.scheduleWrite(key: "durable", after: 60) { [second] in
                _ = second
                return Data("2".utf8)
            }
        }
        try await archiver.stored(key: "durable")
        archiver.flush()
        archiver.waitForWritesInProgress()
        // A second wait runs in a later batch of the archive thread: the batch that held the
        // writes is over by then.
        archiver.waitForWritesInProgress()
        #expect(timed == nil)
        #expect(durable == nil)
    }
}
