import Dispatch
import FlaskAPI
import Foundation

/// Counts the reactions a scenario expects and wakes the producer at the last one.
///
/// `@unchecked Sendable`: `count` is only touched by reaction handlers, which all run on the one
/// serial bus; the producer reads it after the semaphore, which orders the accesses.
final class ReactionCounter: @unchecked Sendable {
    @exclusivity(unchecked) var count = 0
    @exclusivity(unchecked) var target: Int
    let signalEach: Bool
    let done = DispatchSemaphore(value: 0)

    init(target: Int, signalEach: Bool = false) {
        self.target = target
        self.signalEach = signalEach
    }

    @inline(__always)
    func hit() {
        count += 1
        if signalEach || count == target { done.signal() }
    }
}

/// One scenario set up and ready to dispatch.
struct Rig {
    /// Dispatches one unit of work (a mixer, a chain, a locked mixer).
    var dispatch: () -> Void
    /// Reactions one dispatch produces.
    var reactionsPerDispatch: Int
    /// Checks the final state after `count` dispatches; returns a failure or nil.
    var verify: (_ count: Int) -> String?
    /// Detaches reactors and drops substances.
    var teardown: () -> Void
    /// Whether the reactions arrive on the main queue: then the main thread runs the main queue
    /// while another thread dispatches.
    var reactsOnMain = false
    /// Dispatches `count` units at once, for scenarios whose producer is not a loop of
    /// ``dispatch`` (a task that awaits each one); nil: `dispatch` `count` times.
    var produce: ((_ count: Int) -> Void)? = nil
}

/// A scenario of SCENARIOS.md.
struct Scenario: Sendable {
    let id: String
    let name: String
    let defaultCount: Int
    /// Builds a rig whose handlers call `counter.hit()` once per observed change.
    let makeRig: @Sendable (_ counter: ReactionCounter) -> Rig
}

struct ScenarioResult {
    var id: String
    var name: String
    var count: Int
    var reps: Int
    var rates: [Double]
    var latencies: [UInt64]
    var peakRSS: Int
    var check: String

    var median: Double { rates.sorted()[rates.count / 2] }
    var minimum: Double { rates.min() ?? 0 }
    var maximum: Double { rates.max() ?? 0 }
    func latency(_ quantile: Double) -> UInt64? {
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * quantile))]
    }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Waits until the shared bus has run everything queued so far.
func settleBus() {
    let settled = DispatchSemaphore(value: 0)
    Flask.bus.perform { settled.signal() }
    settled.wait()
}

/// Runs the main queue (through the main run loop) until `done` holds; on the main thread.
func runMainQueue(until done: () -> Bool) {
    repeat {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.001))
    } while !done()
}

/// Runs `count` dispatches end to end: from the first dispatch until the last reaction.
func measureThroughput(_ scenario: Scenario, count: Int) -> (rate: Double, check: String?) {
    let counter = ReactionCounter(target: Int.max)
    let rig = scenario.makeRig(counter)
    let expected = count * rig.reactionsPerDispatch
    counter.target = expected
    settleBus()
    let start = now()
    // The producer runs on a thread of its own, as one that outruns the bus does in an app (a
    // socket's reader, an importer): such a thread waits when the bus's backlog reaches its limit,
    // where the main thread never would. This (main) thread waits for the last reaction, or runs
    // the main queue, where the reactions arrive, until the last one.
    nonisolated(unsafe) let dispatch = rig.dispatch
    nonisolated(unsafe) let produce = rig.produce
    let produced = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        if let produce {
            produce(count)
        } else {
            for _ in 0..<count { dispatch() }
        }
        produced.signal()
    }
    if rig.reactsOnMain {
        runMainQueue(until: { counter.count >= expected })
    } else if expected > 0 {
        counter.done.wait()
    }
    produced.wait()
    let elapsed = now() - start
    settleBus()
    if rig.reactsOnMain { runMainQueue(until: { true }) }
    var failure: String?
    if counter.count != expected {
        failure = "delivered \(counter.count) reactions, expected \(expected)"
    } else {
        failure = rig.verify(count)
    }
    rig.teardown()
    return (Double(count) / (Double(elapsed) / 1e9), failure)
}

/// Dispatches one at a time and records the time from dispatch to its (last) reaction.
func measureLatency(_ scenario: Scenario, samples: Int) -> [UInt64] {
    let counter = ReactionCounter(target: Int.max, signalEach: true)
    let rig = scenario.makeRig(counter)
    settleBus()
    var latencies: [UInt64] = []
    latencies.reserveCapacity(samples)
    for _ in 0..<samples {
        let start = now()
        rig.dispatch()
        if rig.reactsOnMain {
            let target = counter.count + rig.reactionsPerDispatch
            runMainQueue(until: { counter.count >= target })
        } else {
            for _ in 0..<rig.reactionsPerDispatch { counter.done.wait() }
        }
        latencies.append(now() - start)
    }
    settleBus()
    rig.teardown()
    return latencies
}

/// Peak and current resident memory of this process, in bytes.
enum ResidentMemory {
    static var peak: Int { read("VmHWM") ?? rusagePeak }
    static var current: Int { read("VmRSS") ?? rusagePeak }

    /// The resident memory once the allocator has handed its free pages back to the system: what
    /// the process really holds, without the free memory glibc keeps in its per-thread arenas.
    static var retained: Int {
        #if os(Linux)
            // glibc's malloc_trim, looked up at run time: its header is not in the Glibc module.
            if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
                typealias MallocTrim = @convention(c) (Int) -> Int32
                _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
            }
        #endif
        return current
    }

    private static func read(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.split(separator: " ").compactMap { Int($0) }
            return digits.first.map { $0 * 1024 }
        }
        return nil
    }

    private static var rusagePeak: Int {
        var usage = rusage()
        #if canImport(Darwin)
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss)
        #else
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Int(usage.ru_maxrss) * 1024
        #endif
    }
}

/// A producer's position in a round-robin over `count` places, for rigs that dispatch to each in
/// turn. A class with an unchecked property rather than a `var` captured by the dispatch closure: a
/// captured `var` is boxed, and the runtime's exclusivity checks of its three accesses cost about
/// 230 instructions a dispatch, the rig's own cost counted as the library's.
///
/// `@unchecked Sendable`: only the producer thread touches it.
final class RoundRobin: @unchecked Sendable {
    @exclusivity(unchecked) private var position = 0
    /// How many places the round-robin visits before it starts again.
    let count: Int

    init(over count: Int) {
        self.count = count
    }

    /// The current place, then moves on to the next.
    @inline(__always)
    func next() -> Int {
        let current = position
        position = current == count - 1 ? 0 : current + 1
        return current
    }
}
