import Archive
import FlaskTestSupport
import Foundation
import Testing

/// Archiving seen from outside, as a user sees it: real processes (`ArchiveAppProbe`, an app that
/// archives a named substance with the default store) started, stopped and killed one after
/// another. Each test gives its processes a data directory of their own (`XDG_DATA_HOME`).
@Suite("Archiving across processes: default store, kills, termination signals")
struct SubstanceArchiveProcessTests {
    static let long = ProcessInfo.processInfo.environment["FLASK_LONG"] != nil

    struct ProbeState: Decodable {
        var counter: Int
    }

    /// A data home of its own, and the default store's directory in it.
    struct DataHome {
        let url = temporaryDirectory()
        var environment: [String: String] { ["XDG_DATA_HOME": url.path] }
        var archives: URL { url.appendingPathComponent("ArchiveAppProbe/archives") }

        func counter(of name: String) throws -> Int? {
            guard let data = try FileArchiveStore(directory: archives).data(forKey: "Fx.1.\(name)") else { return nil }
            return try JSONDecoder().decode(ProbeState.self, from: data).counter
        }
    }

    @Test("the default store keeps a state from one process to the next, in the XDG data directory")
    func defaultStorePersists() throws {
        let home = DataHome()
        let writer = try ChildProcess("ArchiveAppProbe", ["write", "77"], environment: home.environment)
        _ = writer.finish()
        #expect(writer.process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: home.archives.appendingPathComponent("%46x.1.probe.json").path))
        let reader = try ChildProcess("ArchiveAppProbe", ["read"], environment: home.environment)
        #expect(reader.finish() == "77\n")
    }

    #if os(Linux)
        @Test("a write that failed (files limited as on a full disk) is not dropped: the exit flush writes it")
        func failedWriteFlushedAtExit() throws {
            let home = DataHome()
            let child = try ChildProcess("ArchiveAppProbe", ["full-disk"], environment: home.environment)
            let output = child.finish()
            #expect(output.contains("failed\npending\n"))
            // Reported once when the writes start failing, once when the exit flush wrote it.
            #expect(output.components(separatedBy: "archive-write-failed").count == 2)
            #expect(output.components(separatedBy: "archive-write-recovered").count == 2)
            #expect(child.process.terminationStatus == 0)
            #expect(try home.counter(of: "probe") == 2)
        }
    #endif

    /// Commit times from the stream's log, by counter.
    func commitTimes(_ log: URL) throws -> [Int: UInt64] {
        var times: [Int: UInt64] = [:]
        for line in try String(contentsOf: log, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let counter = Int(fields[0]), let time = UInt64(fields[1]) { times[counter] = time }
        }
        return times
    }

    /// Starts a stream of commits every 20 ms, kills the process with SIGKILL `after` seconds in,
    /// and returns how many seconds of commits the archive lost (from the archived commit to the
    /// last one), and how many commits there were.
    func killStream(maxDelay: Double, after seconds: Double) throws -> (lost: Double, commits: Int) {
        let home = DataHome()
        let log = home.url.appendingPathComponent("commits.log")
        // A debounce longer than the stream: only the maximum wait can write.
        let child = try ChildProcess(
            "ArchiveAppProbe", ["stream", "600", "\(maxDelay)", "20", log.path], environment: home.environment)
        guard child.waitFor("ready") else {
            Issue.record("the stream did not start")
            return (.infinity, 0)
        }
        usleep(UInt32(seconds * 1_000_000))
        let killedAt = DispatchTime.now().uptimeNanoseconds
        child.stop(with: SIGKILL)
        let times = try commitTimes(log)
        guard let restored = try home.counter(of: "stream") else {
            Issue.record("nothing was archived in \(seconds) s of commits")
            return (.infinity, times.count)
        }
        let committedAt = try #require(times[restored], "the archived counter \(restored) was committed")
        // Lost: the commits after the archived one, up to the child's last (a child the machine
        // starved before the kill made no commits meanwhile, and lost none).
        // (Not before the archived one: the child may commit, and archive, after `killedAt` was read.)
        let lastCommittedAt = max(committedAt, min(killedAt, times.values.max() ?? killedAt))
        return (Double(lastCommittedAt - committedAt) / 1e9, times.count)
    }

    @Test("a server that acknowledges after stored() loses no acknowledged commit when killed with SIGKILL")
    func durableAcknowledgements() throws {
        var acknowledgedInAll = 0
        for run in 0..<10 {
            let home = DataHome()
            let server = try ChildProcess("ArchiveAppProbe", ["durable"], environment: home.environment)
            guard server.waitFor("ready") else {
                Issue.record("run \(run): the server did not start")
                continue
            }
            // A random moment: in the middle of a write, between writes, before the first one.
            usleep(UInt32.random(in: 50_000...600_000))
            server.stop(with: SIGKILL)
            let output = server.finish().split(separator: "\n")
            let acknowledged = output.compactMap { line -> Int? in
                line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil
            }
            // Every request's mix applies and is stored: none is refused.
            #expect(output.filter { $0.hasPrefix("failed ") } == [], "run \(run)")
            let reader = try ChildProcess("ArchiveAppProbe", ["read-ledger"], environment: home.environment)
            let stored = Set(reader.finish().split(separator: "\n").compactMap { Int($0) })
            let lost = acknowledged.filter { !stored.contains($0) }
            #expect(lost.isEmpty, "run \(run): \(lost.count) of \(acknowledged.count) acknowledged ids lost")
            acknowledgedInAll += acknowledged.count
        }
        #expect(acknowledgedInAll > 100, "the servers acknowledged requests before they were killed")
    }

    @Test("a process killed with SIGKILL in a stream of commits loses no more than the maximum wait")
    func killedMidStream() throws {
        // maxDelay 0.5 s; the margin covers the write itself and a loaded (or sanitized) machine.
        let runs = Self.long ? 20 : 2
        for run in 0..<runs {
            let killAfter = Double.random(in: 2.0...3.0)
            let (lost, commits) = try killStream(maxDelay: 0.5, after: killAfter)
            #expect(commits > 20, "run \(run): the stream ran")
            #expect(lost <= 0.5 + 1.0, "run \(run): killed after \(killAfter) s, lost \(lost) s of commits")
        }
    }

    @Test(
        "with the default maximum wait, a process killed in a stream loses at most about 5 seconds",
        .enabled(if: long, "FLASK_LONG=1: each run takes up to 15 s"))
    func killedMidStreamDefaultBound() throws {
        for run in 0..<5 {
            let killAfter = Double.random(in: 8...15)
            let (lost, _) = try killStream(maxDelay: Archiver.defaultMaxDelay, after: killAfter)
            #expect(lost <= Archiver.defaultMaxDelay + 1.0, "run \(run): killed after \(killAfter) s, lost \(lost) s")
        }
    }

    @Test(
        "with flushOnTermination, SIGTERM and SIGINT flush the pending write, then end the process by the signal",
        arguments: [SIGTERM, SIGINT])
    func terminationFlushes(signal: Int32) throws {
        let home = DataHome()
        let child = try ChildProcess("ArchiveAppProbe", ["terminate", "flush"], environment: home.environment)
        #expect(child.waitFor("ready"))
        child.stop(with: signal)
        #expect(child.process.terminationReason == .uncaughtSignal)
        #expect(child.process.terminationStatus == signal)
        #expect(try home.counter(of: "term") == 42)
    }

    @Test("without flushOnTermination, nothing is installed: SIGTERM ends the process and the write is lost")
    func terminationNotInstalledByDefault() throws {
        let home = DataHome()
        let child = try ChildProcess("ArchiveAppProbe", ["terminate", "noflush"], environment: home.environment)
        #expect(child.waitFor("ready"))
        child.stop(with: SIGTERM)
        #expect(child.process.terminationReason == .uncaughtSignal)
        #expect(child.process.terminationStatus == SIGTERM)
        #expect(try home.counter(of: "term") == nil)
    }

    /// The ids a child acknowledged, and those it was refused.
    static func replies(_ output: String) -> (acked: [Int], refused: [Int]) {
        var acked: [Int] = []
        var refused: [Int] = []
        for line in output.split(separator: "\n") {
            if line.hasPrefix("ack "), let id = Int(line.dropFirst(4)) { acked.append(id) }
            if line.hasPrefix("refused "), let id = Int(line.dropFirst(8)) { refused.append(id) }
        }
        return (acked, refused)
    }

    func ledger(in home: DataHome) throws -> Set<Int> {
        let reader = try ChildProcess("ArchiveAppProbe", ["read-ledger"], environment: home.environment)
        return Set(reader.finish().split(separator: "\n").compactMap { Int($0) })
    }

    @Test("two processes started at once on one archive: one owns it, the other is refused, no acknowledged id is lost")
    func twoProcessesOneOwner() throws {
        let home = DataHome()
        // Each holds what it owns until both are done: one that ended before the other started
        // would let it own the archive in turn.
        let children = try [("1000", "300"), ("2000", "300")].map { first, count in
            try ChildProcess(
                "ArchiveAppProbe", ["append", first, count, "hold"], environment: home.environment, holdingInput: true)
        }
        let done = children.map { $0.read(throughLineStartingWith: "diagnostics ") }
        let outputs = zip(done, children).map { $0 + $1.finish() }
        let replies = outputs.map(Self.replies)
        let stored = try ledger(in: home)
        let acked = replies.flatMap(\.acked)
        let lost = acked.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(acked.count) acknowledged ids lost")
        // One owner acknowledged all of its ids; the other was refused every one, and told once.
        // (Failing, it says what each process said besides its acknowledgements and refusals: an
        // id the owner failed to store says why. CI saw one such id once, on 2026-11-30, with
        // the release build's tests under load, and no reproduction since.)
        let others = outputs.map { output in
            output.split(separator: "\n").filter { !$0.hasPrefix("ack ") && !$0.hasPrefix("refused ") }
        }
        #expect(replies.map(\.acked.count).sorted() == [0, 300], "\(others)")
        #expect(replies.map(\.refused.count).sorted() == [0, 300])
        let refusedOutput = try #require(outputs.first { $0.contains("refused ") && !$0.contains("ack ") })
        #expect(refusedOutput.hasPrefix("refused "), "the restore said the key is owned")
        #expect(refusedOutput.contains("process "), "the owning process is named")
        #expect(refusedOutput.contains("diagnostics 1\n"), "the bus's diagnostics said it once")
    }

    @Test("kill -9 of the owner: a process started after it takes the archive over, nothing acknowledged lost")
    func ownerKilledThenTakenOver() throws {
        let home = DataHome()
        let owner = try ChildProcess("ArchiveAppProbe", ["durable"], environment: home.environment)
        #expect(owner.waitFor("ready"))
        usleep(200_000)
        let refused = try ChildProcess("ArchiveAppProbe", ["append", "100000", "20"], environment: home.environment)
        let refusedReplies = Self.replies(refused.finish())
        owner.stop(with: SIGKILL)
        let ownerAcked = Self.replies(owner.finish()).acked
        let successor = try ChildProcess("ArchiveAppProbe", ["append", "200000", "20"], environment: home.environment)
        let successorReplies = Self.replies(successor.finish())
        let stored = try ledger(in: home)
        #expect(refusedReplies.acked.isEmpty && refusedReplies.refused.count == 20)
        #expect(successorReplies.acked.count == 20)
        let lost = (ownerAcked + successorReplies.acked).filter { !stored.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(ownerAcked.count + 20) acknowledged ids lost")
        #expect(ownerAcked.count > 0, "the owner acknowledged requests before it was killed")
    }
}
