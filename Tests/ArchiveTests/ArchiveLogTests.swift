import Archive
import FlaskTestSupport
import Foundation
import Testing

/// The parsed JSON of `data`, for comparisons that ignore key order and spacing.
private func json(_ data: Data?) throws -> NSObject? {
    guard let data else { return nil }
    return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject
}

private func patch(_ operations: ArchivePatch.Operation...) -> ArchivePatch {
    ArchivePatch(operations)
}

private func set(_ path: [String], _ json: String) -> ArchivePatch.Operation {
    .set(path: path, json: Data(json.utf8))
}

@Suite("The archive's log: durable writes at the cost of the change")
struct ArchiveLogTests {
    let directory = temporaryDirectory().appendingPathComponent("archives")

    private func logURL(_ store: FileArchiveStore, _ key: String) -> URL {
        URL(fileURLWithPath: store.fileURL(forKey: key).path + ".log")
    }

    @Test("a key's value is its file with the patches of its log applied, in order; the log is JSON lines")
    func patchesApply() throws {
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data(#"{"cards":{"a":{"t":"x"}},"n":1}"#.utf8), forKey: "board")
        try store.appendLog((patch(set(["cards", "b"], #"{"t":"y"}"#), set(["n"], "2")).line), forKey: "board")
        try store.appendLog((patch(.remove(path: ["cards", "a"]), set(["deep", "er"], "true")).line), forKey: "board")
        #expect(
            try json(store.data(forKey: "board"))
                == json(Data(#"{"cards":{"b":{"t":"y"}},"n":2,"deep":{"er":true}}"#.utf8)))
        // The file is as it was; the log says what changed, a line a patch.
        #expect(
            try json(Data(contentsOf: store.fileURL(forKey: "board")))
                == json(Data(#"{"cards":{"a":{"t":"x"}},"n":1}"#.utf8)))
        let lines = try String(decoding: Data(contentsOf: logURL(store, "board")), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == #"{"ops":[{"set":["cards","b"],"v":{"t":"y"}},{"set":["n"],"v":2}]}"#)
        #expect(try store.logSize(forKey: "board") == Int(try Data(contentsOf: logURL(store, "board")).count))
    }

    @Test("a last line a crash cut short is left out, and trimmed before the next append")
    func tornTail() throws {
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data(#"{"n":1}"#.utf8), forKey: "k")
        try store.appendLog((patch(set(["n"], "2")).line), forKey: "k")
        let handle = try FileHandle(forWritingTo: logURL(store, "k"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"ops":[{"set":["n"],"v":99"#.utf8))
        try handle.close()
        #expect(try json(store.data(forKey: "k")) == json(Data(#"{"n":2}"#.utf8)))
        try store.appendLog((patch(set(["m"], "3")).line), forKey: "k")
        #expect(try json(store.data(forKey: "k")) == json(Data(#"{"n":2,"m":3}"#.utf8)))
        #expect(
            try String(decoding: Data(contentsOf: logURL(store, "k")), as: UTF8.self).split(separator: "\n").count == 2)
    }

    @Test("a damaged whole line is reported, not skipped, and the key is not written over")
    func damagedLine() throws {
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data(#"{"n":1}"#.utf8), forKey: "k")
        try store.appendLog((patch(set(["n"], "2")).line), forKey: "k")
        let handle = try FileHandle(forWritingTo: logURL(store, "k"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("garbage\n".utf8) + (patch(set(["n"], "3")).line))
        try handle.close()
        let damaged = try Data(contentsOf: logURL(store, "k"))
        #expect(throws: ArchiveLogDamagedError(key: "k", line: 2)) { try store.data(forKey: "k") }
        struct Value: Codable { var n = 0 }
        let archiver = Archiver(store: store)
        let restored = archiver.restore(Value.self, key: "k", defaultValue: Value(), owner: self as AnyObject)
        #expect(restored.problems.map(\.kind) == [.storeFailed(operation: "read")])
        archiver.writeNow(key: "k", encode: { Data(#"{"n":7}"#.utf8) })
        archiver.flush()
        #expect(try Data(contentsOf: logURL(store, "k")) == damaged)
    }

    @Test(
        "a damaged log's problem names its line; stored() then says why the key is not written, not that a write failed"
    )
    func damagedLineSaid() async throws {
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data(#"{"n":1}"#.utf8), forKey: "k")
        try store.appendLog((patch(set(["n"], "2")).line), forKey: "k")
        let handle = try FileHandle(forWritingTo: logURL(store, "k"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("this is not a patch\n".utf8))
        try handle.close()
        struct Value: Codable { var n = 0 }
        let archiver = Archiver(store: store)
        let restored = archiver.restore(Value.self, key: "k", defaultValue: Value(), owner: self as AnyObject)
        let reason = try #require(restored.problems.first?.reason)
        #expect(reason.contains("the log of k is damaged at line 2"), "\(reason)")
        // The write is refused, never attempted; what stored() answers says so.
        archiver.writeNow(key: "k", encode: { Data(#"{"n":7}"#.utf8) })
        archiver.flush()
        await #expect {
            try await archiver.stored(key: "k")
        } throws: { error in
            (error as? ArchiveProblem)?.reason.contains("could not be read or kept aside") == true
        }
        // A person mends the key (the damaged log removed): restored again, it reads, and the
        // refusals are over with the protection.
        try FileManager.default.removeItem(at: logURL(store, "k"))
        let mended = archiver.restore(Value.self, key: "k", defaultValue: Value(), owner: self as AnyObject)
        #expect(mended.problems.isEmpty && mended.value.n == 1)
        #expect(archiver.failingKeys.isEmpty)
        try await archiver.stored(key: "k")
    }

    @Test("a whole value set over a log goes at the log's end; a removal is logged before the files go")
    func wholeAndRemoved() throws {
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data(#"{"n":1}"#.utf8), forKey: "k")
        try store.appendLog((patch(set(["n"], "2")).line), forKey: "k")
        try store.set(Data(#"{"m":5}"#.utf8), forKey: "k")
        #expect(try json(store.data(forKey: "k")) == json(Data(#"{"m":5}"#.utf8)))
        #expect(
            try String(decoding: Data(contentsOf: logURL(store, "k")), as: UTF8.self).split(separator: "\n").count == 2)
        try store.removeData(forKey: "k")
        #expect(try store.data(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: logURL(store, "k").path))
        #expect(!FileManager.default.fileExists(atPath: store.fileURL(forKey: "k").path))
        // A crash after the removal was logged, before the files went: the value reads removed.
        try store.set(Data(#"{"n":1}"#.utf8), forKey: "k")
        try store.appendLog((patch(set(["n"], "2")).line), forKey: "k")
        try store.appendLog(Data(#"{"ops":[{"remove":[]}]}"#.utf8 + [10]), forKey: "k")
        #expect(try store.data(forKey: "k") == nil)
        // A value that is not JSON replaces file and log.
        try store.set(Data("not json".utf8), forKey: "k")
        #expect(try store.data(forKey: "k") == Data("not json".utf8))
        #expect(try store.logSize(forKey: "k") == 0)
    }

    @Test("compaction: the snapshot holds the value and the log what came after; a crash between reads the same")
    func compaction() throws {
        var random = SeededRandom(seed: 53)
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data("{}".utf8), forKey: "k")
        var lines: [Data] = []
        for _ in 0..<200 {
            var operations: [ArchivePatch.Operation] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let path = (0...Int.random(in: 0...1, using: &random)).map { _ in
                    ["a", "b", "c"][Int.random(in: 0..<3, using: &random)]
                }
                operations.append(
                    Int.random(in: 0..<4, using: &random) == 0
                        ? .remove(path: path) : set(path, "\(Int.random(in: 0..<100, using: &random))"))
            }
            let line = ArchivePatch(operations).line
            lines.append(line)
            try store.appendLog(line, forKey: "k")
        }
        let value = try store.data(forKey: "k")
        let fullLog = try Data(contentsOf: logURL(store, "k"))
        let firstHalf = lines.prefix(100).reduce(0) { $0 + $1.count }
        try store.compactLog(forKey: "k", snapshot: try #require(value), droppingFirst: firstHalf)
        #expect(try json(store.data(forKey: "k")) == json(value))
        #expect(try store.logSize(forKey: "k") == fullLog.count - firstHalf)
        // A crash after the snapshot was written, before the log lost its first lines: the patches
        // it holds already are applied again, to the same value.
        try fullLog.write(to: logURL(store, "k"))
        #expect(try json(store.data(forKey: "k")) == json(value))
    }

    @Test(
        "a read while the log is compacted is the value the key had last, or later: never the old snapshot with the new log, or without its log"
    )
    func readsDuringCompaction() throws {
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data("{}".utf8), forKey: "k")
        // Line i sets key "i": a value the key had holds the keys 0..<n for some n, and a read
        // begun after line i was appended holds key i (it is no older than what was acknowledged).
        let done = LockedBox(false)
        let appended = LockedBox(0)
        let wrong = LockedBox<[String]>([])
        let reads = LockedBox(0)
        // More readers than cores: a reader is put aside between its reads of the two files, as
        // on a loaded machine. Each pauses between two reads: four threads reading without a pause
        // starved the writer and every other test (under the thread sanitizer, the runtime takes a
        // lock on each access of a generic type's metadata), and a compaction takes far longer
        // than the pause, so reads still fall inside compactions.
        let readers = (0..<4).map { _ in
            Thread {
                while !done.withLock({ $0 }) {
                    usleep(200)
                    let acknowledged = appended.withLock { $0 }
                    guard let data = try? store.data(forKey: "k"),
                        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Int]
                    else {
                        wrong.withLock { $0.append("unreadable") }
                        continue
                    }
                    reads.withLock { $0 += 1 }
                    if Set(object.keys) != Set((0..<object.count).map(String.init)) {
                        wrong.withLock { $0.append("\(object.count) keys, not 0..<\(object.count)") }
                    } else if object.count < acknowledged {
                        wrong.withLock { $0.append("\(object.count) keys, after \(acknowledged) were acknowledged") }
                    }
                }
            }
        }
        for reader in readers { reader.start() }
        var value: [String: Int] = [:]
        var pending = 0
        for index in 0..<300 {
            value[String(index)] = index
            let line = patch(set([String(index)], String(index))).line
            try store.appendLog(line, forKey: "k")
            appended.withLock { $0 = index + 1 }
            pending += line.count
            if index % 3 == 2 {
                try store.compactLog(
                    forKey: "k", snapshot: JSONSerialization.data(withJSONObject: value), droppingFirst: pending)
                pending = 0
            }
        }
        done.withLock { $0 = true }
        while readers.contains(where: { !$0.isFinished }) { usleep(1_000) }
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(3) })")
        #expect(reads.withLock { $0 } > 0)
    }

    @Test("an archiver appends patches after its first whole write, and compacts past the threshold")
    func archiverAppends() throws {
        let store = try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        archiver.minimumCompactionBytes = 400
        struct Box: Sendable { var value: [String: Int] = [:] }
        let current = LockedBox(Box())
        func write(_ key: String, _ number: Int) {
            current.withLock { $0.value[key] = number }
            let snapshot = current.withLock { $0 }
            archiver.scheduleWrite(
                key: "k", after: 0, encode: { try ArchiveEncoder().encode(snapshot.value) },
                patch: { ArchivePatch([.set(path: [key], json: Data("\(number)".utf8))]) })
            archiver.flush()
        }
        write("a", 1)
        // The first write is whole: no log yet.
        #expect(try store.logSize(forKey: "k") == 0)
        write("b", 2)
        #expect(try store.logSize(forKey: "k") > 0)
        #expect(try json(Data(contentsOf: store.fileURL(forKey: "k"))) == json(Data(#"{"a":1}"#.utf8)))
        for number in 0..<40 { write("k\(number % 7)", number) }
        archiver.waitForCompactions()
        #expect(try json(store.data(forKey: "k")) == json(ArchiveEncoder().encode(current.withLock { $0.value })))
        // A compaction drops what the log held when it started; what was appended while it ran
        // (many lines, on a loaded machine) waits for the next append. One more, with none under
        // way, compacts the log if it is past the threshold.
        write("last", 1)
        archiver.waitForCompactions()
        #expect(try json(store.data(forKey: "k")) == json(ArchiveEncoder().encode(current.withLock { $0.value })))
        // Compacted: the log is back under the threshold's order, the snapshot near the value.
        #expect(try store.logSize(forKey: "k") < 400 + 100)
        #expect(try json(Data(contentsOf: store.fileURL(forKey: "k"))) != json(Data(#"{"a":1}"#.utf8)))
    }
}

/// A value behind a lock, for a test's closures.
private final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // Safe: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
