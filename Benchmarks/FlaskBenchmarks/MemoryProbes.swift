import Dispatch
import FlaskAPI
import Foundation

/// The memory targets of the benchmark issue, and the isolation of unrelated reactors.
enum MemoryProbes {
    /// Resident bytes per dispatch queued behind a lock (run in a fresh process: see `inChildProcess`).
    static func bytesPerPendingDispatch(count: Int, kind: PendingKind = .plain) -> (bytes: Double, check: String?) {
        let owner = BenchOwner()
        let substance: Substance<CounterState> =
            switch kind {
            case .plain: CounterSubstance()
            case .payload: PayloadCounter()
            case .action: ActionCounter()
            }
        let counter = ReactionCounter(target: count)
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        reactor.handler = { _, reaction in reaction.on("counter") { _ in counter.hit() } }
        settleBus()
        // The backlog is the point here: no diagnostic for it.
        let mark = Flask.bus.backlogHighWaterMark
        Flask.bus.backlogHighWaterMark = nil
        defer { Flask.bus.backlogHighWaterMark = mark }
        let lock = Flask.lock()
        let before = ResidentMemory.current
        for _ in 0..<count {
            switch kind {
            case .plain: Flask.substances(reactTo: CounterMixers.increment)
            case .payload: Flask.substances(reactTo: CounterMixers.add, payload: ["amount": 1])
            case .action: Flask.substances(reactTo: Add(amount: 1))
            }
        }
        let after = ResidentMemory.current
        lock.release()
        counter.done.wait()
        settleBus()
        Flask.detachReactor(from: owner)
        let check = substance.state.counter == count ? nil : "counter is \(substance.state.counter)"
        return (Double(after - before) / Double(count), check)
    }

    /// What a pending dispatch carries: nothing, a one-key payload, or a typed action with an `Int`.
    enum PendingKind: String, CaseIterable {
        case plain, payload, action
    }

    /// Resident bytes per reactor, with `count` reactors bound to one substance (fresh process).
    static func bytesPerReactor(count: Int) -> Double {
        let substance = CounterSubstance()
        let owners = (0..<count).map { _ in BenchOwner() }
        settleBus()
        // Read once the allocator returned its free pages: how much of the memory freed while
        // binding stays in glibc's per-thread arenas varies from run to run.
        let before = ResidentMemory.retained
        for owner in owners {
            let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
            reactor.handler = { _, _ in }
        }
        settleBus()
        let after = ResidentMemory.retained
        for owner in owners { Flask.detachReactor(from: owner) }
        settleBus()
        return Double(after - before) / Double(count)
    }

    /// S1's rate with `count` reactors bound to 100 other substances, over S1's rate alone: the
    /// median of five rounds, each measuring both back to back (in alternating order), so that the
    /// machine's drift between two measurements far apart does not pass for a difference.
    static func isolation(count: Int, dispatches: Int) -> (ratio: Double, check: String?) {
        let s1 = scenarios[0]
        let others = (0..<100).map { _ in Substance<CounterState>() }  // not reacting to S1's mixer
        var check: String?
        func crowded() -> Double {
            let owners = (0..<count).map { _ in BenchOwner() }
            for (index, owner) in owners.enumerated() {
                let reactor = Flask.reactor(attachedTo: owner, mixing: others[index % others.count])
                reactor.handler = { _, _ in }
            }
            settleBus()
            let run = measureThroughput(s1, count: dispatches)
            check = check ?? run.check
            for owner in owners { Flask.detachReactor(from: owner) }
            settleBus()
            return run.rate
        }
        let ratios = (0..<5).map { round in
            if round % 2 == 0 {
                let alone = measureThroughput(s1, count: dispatches).rate
                return crowded() / alone
            } else {
                let withReactors = crowded()
                return withReactors / measureThroughput(s1, count: dispatches).rate
            }
        }
        return (ratios.sorted()[2], check)
    }
}

extension MemoryProbes {
    /// Resident memory after `cycles` reactors were attached to a substance and detached, over the
    /// resident memory after the first tenth of them (warm-up): 1.0 is flat (fresh process).
    static func attachDetachGrowth(cycles: Int) -> Double {
        let substance = CounterSubstance()
        return growth(cycles: cycles) {
            let owner = BenchOwner()
            let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
            reactor.handler = { _, reaction in reaction.on("counter") { _ in } }
            Flask.detachReactor(from: owner)
        }
    }

    /// Resident memory after `count` reactive substances (each registering its mixer on the bus)
    /// were created, mixed once and dropped, over the resident memory after the first tenth.
    static func substanceChurnGrowth(count: Int) -> Double {
        var made = 0
        return growth(cycles: count) {
            let substance = CounterSubstance()
            made += 1
            // Now and then a dispatch reaches the substances alive at that moment.
            if made % 1_000 == 0 { Flask.substances(reactTo: CounterMixers.increment) }
            withExtendedLifetime(substance) {}
        }
    }

    /// Runs `cycle` `cycles` times, letting the bus catch up every 10,000, and returns the resident
    /// memory at the end over the resident memory after the first tenth, both read once the
    /// allocator returned its free pages (glibc's arenas otherwise keep freed memory resident, in
    /// steps that depend on which thread freed what).
    private static func growth(cycles: Int, _ cycle: () -> Void) -> Double {
        let warmUp = cycles / 10
        var warm = 0
        for index in 0..<cycles {
            cycle()
            if index % 10_000 == 9_999 { settleBus() }
            if index % 100_000 == 99_999, ProcessInfo.processInfo.environment["FLASK_TRACE"] != nil {
                FileHandle.standardError.write(Data("\(index + 1): \(ResidentMemory.retained)\n".utf8))
            }
            if index == warmUp - 1 {
                settleBus()
                warm = ResidentMemory.retained
            }
        }
        settleBus()
        return Double(ResidentMemory.retained) / Double(max(warm, 1))
    }
}

extension MemoryProbes {
    /// Runs `FlaskBenchmarks --probe <name>` and reads the number it prints: memory grown in a
    /// fresh process is not hidden by memory that earlier work freed and the allocator reuses.
    static func inChildProcess(_ name: String, environment: [String: String] = [:]) -> Double? {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--probe", name]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
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
