import Dispatch
import FlaskAPI
import Foundation

/// The memory targets of the benchmark issue, and the isolation of unrelated reactors.
enum MemoryProbes {
    /// Resident bytes per dispatch queued behind a lock (run in a fresh process: see `inChildProcess`).
    static func bytesPerPendingDispatch(count: Int) -> (bytes: Double, check: String?) {
        let owner = BenchOwner()
        let substance = CounterSubstance()
        let counter = ReactionCounter(target: count)
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        reactor.handler = { _, reaction in reaction.on("counter") { _ in counter.hit() } }
        settleBus()
        let lock = Flask.lock()
        let before = ResidentMemory.current
        for _ in 0..<count { Flask.substances(reactTo: CounterMixers.increment) }
        let after = ResidentMemory.current
        lock.release()
        counter.done.wait()
        settleBus()
        Flask.detachReactor(from: owner)
        let check = substance.state.counter == count ? nil : "counter is \(substance.state.counter)"
        return (Double(after - before) / Double(count), check)
    }

    /// Resident bytes per reactor, with `count` reactors bound to one substance (fresh process).
    static func bytesPerReactor(count: Int) -> Double {
        let substance = CounterSubstance()
        let owners = (0..<count).map { _ in BenchOwner() }
        settleBus()
        let before = ResidentMemory.current
        for owner in owners {
            let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
            reactor.handler = { _, _ in }
        }
        settleBus()
        let after = ResidentMemory.current
        for owner in owners { Flask.detachReactor(from: owner) }
        settleBus()
        return Double(after - before) / Double(count)
    }

    /// S1's rate with `count` reactors bound to 100 other substances, over S1's rate alone.
    static func isolation(count: Int, dispatches: Int) -> (ratio: Double, check: String?) {
        let s1 = scenarios[0]
        let alone = (0..<3).map { _ in measureThroughput(s1, count: dispatches).rate }.sorted()[1]
        let others = (0..<100).map { _ in Substance<CounterState>() }  // not reacting to S1's mixer
        let owners = (0..<count).map { _ in BenchOwner() }
        for (index, owner) in owners.enumerated() {
            let reactor = Flask.reactor(attachedTo: owner, mixing: others[index % others.count])
            reactor.handler = { _, _ in }
        }
        settleBus()
        var check: String?
        let crowded = (0..<3).map { _ in
            let run = measureThroughput(s1, count: dispatches)
            check = check ?? run.check
            return run.rate
        }.sorted()[1]
        for owner in owners { Flask.detachReactor(from: owner) }
        settleBus()
        return (crowded / alone, check)
    }
}

extension MemoryProbes {
    /// Runs `FlaskBenchmarks --probe <name>` and reads the number it prints: memory grown in a
    /// fresh process is not hidden by memory that earlier work freed and the allocator reuses.
    static func inChildProcess(_ name: String) -> Double? {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--probe", name]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

extension MemoryProbes {
    /// Milliseconds to restore an archived state of about 1 MB from the file store (median of 5).
    static func restoreMilliseconds() -> Double {
        var large = LargeState()
        large.rows = (0..<16_384).map { String(repeating: "r", count: 56) + String(format: "%08d", $0) }
        large.total = large.rows.count
        let archiver = ArchivedCounter.fileArchiver
        try? archiver.write(try! JSONEncoder().encode(large), key: "bench.large")
        var times: [Double] = []
        for _ in 0..<5 {
            let start = now()
            let restored = archiver.restore(LargeState.self, key: "bench.large", defaultValue: LargeState())
            times.append(Double(now() - start) / 1e6)
            precondition(restored.value.total == 16_384)
        }
        try? archiver.remove(key: "bench.large")
        return times.sorted()[2]
    }
}
