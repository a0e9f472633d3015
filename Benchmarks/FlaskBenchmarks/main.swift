// FlaskBenchmarks: dispatch throughput of Flask Reactor, end to end, as SCENARIOS.md specifies.
//
//   swift run -c release FlaskBenchmarks                        every scenario, a quick table (a few minutes)
//   swift run -c release FlaskBenchmarks --full                 the long table: 4x the counts, sizes to 10^6
//   swift run -c release FlaskBenchmarks --scenario S2 --count 1000000
//   swift run -c release FlaskBenchmarks --json                 one JSON object per line
//   swift run -c release FlaskBenchmarks --smoke                small counts, checks only (CI)
//   swift run -c release FlaskBenchmarks --durable-ratio        S10 at 10^5 accounts against 10^3
import FlaskAPI
import Foundation

struct Options {
    var scenario: String?
    var count: Int?
    /// S8's list size.
    var size: Int?
    var json = false
    var smoke = false
    var memoryOnly = false
    var memoryScaling = false
    /// Only S10's rate at 10^5 accounts against its rate at 10^3 (the smoke run's check).
    var durableRatio = false
    var probe: String?
    var reps = 3
    /// The long table: the default counts and the big sizes (S8 at 10^5 items, S8d at 10^6 entries).
    var full = false

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--scenario": options.scenario = iterator.next()
            case "--count": options.count = iterator.next().flatMap { Int($0.replacingOccurrences(of: "_", with: "")) }
            case "--size": options.size = iterator.next().flatMap { Int($0.replacingOccurrences(of: "_", with: "")) }
            case "--reps": options.reps = iterator.next().flatMap(Int.init) ?? options.reps
            case "--json": options.json = true
            case "--smoke": options.smoke = true
            case "--full": options.full = true
            case "--memory": options.memoryOnly = true
            case "--memory-scaling": options.memoryScaling = true
            case "--durable-ratio": options.durableRatio = true
            case "--probe": options.probe = iterator.next()
            case "--help", "-h":
                print(
                    "usage: FlaskBenchmarks [--scenario S1..S10|name] [--count N] [--size N] [--reps R] [--json] [--smoke] "
                        + "[--full] [--memory] [--memory-scaling] [--durable-ratio]"
                )
                exit(0)
            default:
                FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
        return options
    }
}

func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

let options = Options.parse(CommandLine.arguments)
// Diagnostics would be a bug here; make them loud.
Flask.diagnostics = { diagnostic in progress("diagnostic: \(diagnostic)") }

var failures: [String] = []
var results: [ScenarioResult] = []

func run(_ scenario: Scenario, count: Int, reps: Int, latencySamples: Int) -> ScenarioResult {
    var rates: [Double] = []
    var check = "ok"
    for rep in 1...reps {
        progress("\(scenario.id) \(scenario.name): rep \(rep)/\(reps), \(count) dispatches")
        let outcome = measureThroughput(scenario, count: count)
        // The rig's state is freed where its last holder lets go, maybe on the bus: waiting for
        // the bus here frees it before the next rep and before the process exits, so that two
        // runs' instruction counts differ by their dispatches alone (at 10^6 entries, whether the
        // exit came first moved a run by hundreds of millions of instructions).
        settleBus()
        rates.append(outcome.rate)
        if let failure = outcome.check, check == "ok" { check = failure }
    }
    let latencies = latencySamples > 0 ? measureLatency(scenario, samples: latencySamples) : []
    return ScenarioResult(
        id: scenario.id, name: scenario.name, count: count, reps: reps, rates: rates, latencies: latencies,
        peakRSS: ResidentMemory.peak, check: check)
}

/// S1's median in `results`, the rate other scenarios are compared with in the same run.
func s1Rate(in results: [ScenarioResult]) -> Double? {
    results.first { $0.id == "S1" }?.median
}

func json(_ result: ScenarioResult, naive: Double?, s1: Double? = nil) -> String {
    var fields: [String] = [
        "\"scenario\":\"\(result.id)\"", "\"name\":\"\(result.name)\"", "\"count\":\(result.count)",
        "\"reps\":\(result.reps)", "\"ops_per_s_median\":\(Int(result.median))",
        "\"ops_per_s_min\":\(Int(result.minimum))", "\"ops_per_s_max\":\(Int(result.maximum))",
        "\"latency_p50_ns\":\(result.latency(0.5).map(String.init) ?? "null")",
        "\"latency_p99_ns\":\(result.latency(0.99).map(String.init) ?? "null")",
        "\"peak_rss_bytes\":\(result.peakRSS)",
    ]
    if let naive { fields.append("\"ratio_to_naive_queue\":\(String(format: "%.3f", result.median / naive))") }
    if let s1 { fields.append("\"ratio_to_s1\":\(String(format: "%.3f", result.median / s1))") }
    fields.append("\"check\":\"\(result.check.replacingOccurrences(of: "\"", with: "'"))\"")
    return "{" + fields.joined(separator: ",") + "}"
}

func millions(_ rate: Double) -> String { String(format: "%.3f", rate / 1e6) }
func micros(_ nanos: UInt64?) -> String { nanos.map { String(format: "%.1f", Double($0) / 1e3) } ?? "-" }

func printTable(_ results: [ScenarioResult], naive: Double?) {
    let header = [
        "scenario", "count", "reps", "median M/s", "min", "max", "x S1", "x naive", "p50 us", "p99 us", "peak RSS MB",
        "check",
    ]
    var rows = [header]
    let s1 = s1Rate(in: results)
    for r in results {
        rows.append([
            "\(r.id) \(r.name)", "\(r.count)", "\(r.reps)", millions(r.median), millions(r.minimum),
            millions(r.maximum), s1.map { String(format: "%.2f", r.median / $0) } ?? "-",
            naive.map { String(format: "%.2f", r.median / $0) } ?? "-", micros(r.latency(0.5)), micros(r.latency(0.99)),
            String(format: "%.0f", Double(r.peakRSS) / 1_048_576), r.check,
        ])
    }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    for (index, row) in rows.enumerated() {
        print(
            row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(
                separator: "  "))
        if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
    }
}

/// S8's floor, measured now: the list copied, one item changed, the copy compared.
func printFloor(_ result: ScenarioResult, size: Int) {
    let floor = collectionFloor(size: size, count: max(100, min(1_000_000, 100_000_000 / size)))
    print(
        String(
            format: "S8 at %d items: %.0f dispatches/s; the floor (copy, change one, compare) %.0f/s; S8 at %.2f of it",
            size, result.median, floor, result.median / floor))
}

/// S8d's floor, measured now (the dictionary copied, one entry changed, the copy compared) in at
/// most `maxCount` rounds, in operations a second.
func dictionaryFloor(size: Int, maxCount: Int) -> Double {
    dictionaryFloor(size: size, count: max(20, min(maxCount, 50_000_000 / size)))
}

/// S8d against its floor. A ratio under 1/3 misses the target (at most three times the floor's
/// time).
func printDictionaryFloor(_ result: ScenarioResult, size: Int) {
    let floor = dictionaryFloor(size: size, maxCount: 1_000_000)
    print(
        String(
            format:
                "S8d at %d entries: %.0f dispatches/s; the floor (copy, change one, compare) %.0f/s; S8d at %.2f of it (%.2fx its time)",
            size, result.median, floor, result.median / floor, floor / result.median))
}

// One run of one scenario.
if let wanted = options.scenario {
    // One scenario, or several in one process, in the order given (`--scenario S1,S6`): a
    // scenario's figure can depend on what ran before it in the process (the table runs them all).
    var ran: [(ScenarioResult, floor: String?)] = []
    for name in wanted.split(separator: ",").map(String.init) {
        let collection = name.lowercased() == "s8" || name == "collection"
        let dictionary = name.lowercased() == "s8d" || name == "dictionary"
        let journaled = name.lowercased() == "s8dj"
        let durable = name.lowercased() == "s10" || name == "durable"
        let size = options.size ?? 100_000
        let sized: Scenario? =
            switch name.lowercased() {
            case "s8t": collectionScenario(size: size, big: true)
            case "s8dt": dictionaryScenario(size: size, big: true)
            case "s8do": observableDictionaryScenario(size: size)
            default: nil
            }
        guard
            let scenario = sized
                ?? (collection
                    ? collectionScenario(size: options.size ?? 100_000)
                    : dictionary || journaled
                        ? dictionaryScenario(size: options.size ?? 100_000, journal: journaled)
                        : durable
                            ? durableScenario(size: options.size ?? 100_000)
                            : allScenarios.first(where: { $0.id.lowercased() == name.lowercased() || $0.name == name }))
        else {
            progress("no scenario \(name); use S1..S8 or a name: \(allScenarios.map(\.name).joined(separator: ", "))")
            exit(2)
        }
        let count = options.count ?? scenario.defaultCount
        let reps = options.count == nil ? options.reps : 1
        let result = run(scenario, count: count, reps: reps, latencySamples: options.count == nil ? 1_000 : 0)
        if result.check != "ok" { failures.append("\(scenario.id): \(result.check)") }
        ran.append((result, collection ? "S8" : dictionary ? "S8d" : nil))
    }
    if options.json {
        let s1 = s1Rate(in: ran.map(\.0))
        for (result, _) in ran { print(json(result, naive: nil, s1: s1)) }
    } else {
        printTable(ran.map(\.0), naive: nil)
        for (result, floor) in ran {
            if floor == "S8" { printFloor(result, size: options.size ?? 100_000) }
            if floor == "S8d" { printDictionaryFloor(result, size: options.size ?? 100_000) }
            if result.id == "S10" {
                print(
                    String(
                        format: "S10 at %d accounts: %.0f acknowledgements/s", options.size ?? 100_000, result.median))
            }
        }
    }
    exit(failures.isEmpty ? 0 : 1)
}

// The smoke run of CI: every scenario and probe with small counts; the checks must pass.
if options.smoke {
    for scenario in allScenarios {
        results.append(run(scenario, count: min(2_000, scenario.defaultCount), reps: 1, latencySamples: 20))
    }
    failures += results.filter { $0.check != "ok" }.map { "\($0.id): \($0.check)" }
    let bus = ReferencePoints.busAlone(count: 2_000, producers: 4)
    if let check = bus.check { failures.append("bus alone: \(check)") }
    let pending = MemoryProbes.bytesPerPendingDispatch(count: 2_000)
    if let check = pending.check { failures.append("pending dispatches: \(check)") }
    printTable(results, naive: nil)
    // A big state's commit stays within a small multiple of its floor (issue #42: a commit of one
    // entry of a dictionary was 90 to 127 times it). The table runs hold it to 3; a loaded CI
    // machine is given 10, which a return to flattening whole dictionaries would still break.
    for (result, size) in zip(results.filter { $0.id == "S8d" }, dictionarySizes) {
        let times = dictionaryFloor(size: size, maxCount: 2_000) / result.median
        print(String(format: "S8d at %d entries: %.2fx the floor's time", size, times))
        if times > 10 { failures.append(String(format: "S8d at %d entries: %.1fx the floor's time", size, times)) }
    }
    // Big collections cost the change, not the collection (issue #52): S8t's and S8dt's rates at
    // 10^6 entries stay near their rates at 10^3 (measured 0.3 to 0.7: the same instructions, more
    // cache misses), where a copy of the collection per edit would put them under 0.01. A loaded
    // CI machine is given 0.1.
    for id in ["S8t", "S8dt"] {
        let rows = results.filter { $0.id == id }
        guard let first = rows.first, let last = rows.last, rows.count == bigCollectionSizes.count else { continue }
        let ratio = last.median / first.median
        print(
            String(
                format: "%@ at %d entries: %.2f of its rate at %d", id, bigCollectionSizes.last!, ratio,
                bigCollectionSizes[0]))
        if ratio < 0.1 { failures.append(String(format: "%@ grows with its size: %.3f", id, ratio)) }
    }
    // Durable acknowledgements cost the change, not the state (issue #53): S10 at 10^5 accounts
    // acknowledges at least 0.8 of its rate at 10^3 (`--durable-ratio`, measured 0.89 to 0.93 on a
    // quiet machine). Measured in rounds that alternate the two sizes, the median of each compared,
    // so that the machine's drift falls on both alike. The rates are fsync's, which a loaded CI
    // machine spreads from 5,377 to 12,801 a second for one size in one run (a smoke run read 0.79
    // that way): the smoke run is given 0.3, which a return to encoding the whole state per write
    // would still break (whole writes acknowledged 47 a second at 10^5 against 2,519 at 10^3: 0.02).
    failures += durableSizeRatio(atLeast: 0.3)
    for failure in failures { print("FAILED \(failure)") }
    exit(failures.isEmpty ? 0 : 1)
}

/// S10 at 10^5 accounts against S10 at 10^3, in rounds that alternate the two sizes (the median of
/// each compared, so that the machine's drift falls on both alike); the failures: under `atLeast`.
func durableSizeRatio(atLeast threshold: Double) -> [String] {
    var small: [Double] = []
    var large: [Double] = []
    var failures: [String] = []
    for _ in 0..<5 {
        for (size, rates) in [(durableSizes[0], 0), (durableSizes.last!, 1)] {
            let result = run(durableScenario(size: size), count: 4_000, reps: 1, latencySamples: 0)
            if result.check != "ok" { failures.append("S10 at \(size): \(result.check)") }
            if rates == 0 { small.append(result.median) } else { large.append(result.median) }
        }
    }
    let ratio = large.sorted()[2] / small.sorted()[2]
    print(
        String(
            format:
                "S10 at %d accounts: %.2f of the rate at %d (acknowledgements/s at the first: %@; at the second: %@)",
            durableSizes.last!, ratio, durableSizes[0], large.map { String(Int($0)) }.joined(separator: ", "),
            small.map { String(Int($0)) }.joined(separator: ", ")))
    if ratio < threshold {
        failures.append(
            String(format: "S10 at 10^5 accounts: %.2f of the rate at 10^3, under %.2f", ratio, threshold))
    }
    return failures
}

// `--durable-ratio`: that comparison alone, held to issue #53's 0.8.
if options.durableRatio {
    let failures = durableSizeRatio(atLeast: 0.8)
    for failure in failures { print("FAILED \(failure)") }
    exit(failures.isEmpty ? 0 : 1)
}

/// S10's rate at its largest size over its rate at its smallest, in `results`.
func durableRatio(_ results: [ScenarioResult]) -> Double? {
    let durable = results.filter { $0.id == "S10" }
    guard durable.count == durableSizes.count, let first = durable.first, let last = durable.last else { return nil }
    return last.median / first.median
}

// One memory probe, in a process of its own (see MemoryProbes.inChildProcess).
if let probe = options.probe {
    let probeCycles = Int(ProcessInfo.processInfo.environment["FLASK_CYCLES"] ?? "") ?? 1_000_000
    switch probe {
    case "pending", "pending-payload", "pending-action":
        let kind = MemoryProbes.PendingKind(rawValue: String(probe.dropFirst("pending-".count))) ?? .plain
        let result = MemoryProbes.bytesPerPendingDispatch(count: 200_000, kind: kind)
        print(result.bytes)
        exit(result.check == nil ? 0 : 1)
    case "reactors":
        print(MemoryProbes.bytesPerReactor(count: 10_000))
        exit(0)
    case "attach-detach":
        print(MemoryProbes.attachDetachGrowth(cycles: probeCycles))
        exit(0)
    case "substance-churn":
        print(MemoryProbes.substanceChurnGrowth(count: probeCycles))
        exit(0)
    default:
        exit(2)
    }
}

/// Resident memory growth over a million reactor attach/detach cycles and a million substances
/// created and dropped (each in a fresh process): 1.0 is flat, the target is at most 1.1.
///
/// Measured with one glibc malloc arena (`MALLOC_ARENA_MAX=1`): with the default per-thread arenas,
/// memory allocated on the caller's thread and freed on the bus's stays resident as fragmentation
/// (10–30% here, in steps), which hides what the library itself holds. The default figures are
/// printed too.
@MainActor func flatnessReport() -> [(name: String, oneArena: Double, defaultArenas: Double)] {
    progress("memory flatness (1,000,000 cycles each)")
    var report: [(name: String, oneArena: Double, defaultArenas: Double)] = []
    for probe in ["attach-detach", "substance-churn"] {
        let oneArena = MemoryProbes.inChildProcess(probe, environment: ["MALLOC_ARENA_MAX": "1"]) ?? .infinity
        let defaultArenas = MemoryProbes.inChildProcess(probe) ?? .infinity
        if oneArena > 1.1 { failures.append("\(probe): resident memory grew \(oneArena)×") }
        report.append((probe, oneArena, defaultArenas))
    }
    return report
}

@MainActor func memoryReport() -> (pending: Double, perReactor: Double, isolation: Double) {
    progress("memory and isolation")
    guard let pending = MemoryProbes.inChildProcess("pending") else {
        failures.append("pending dispatches: the probe failed")
        return (0, 0, 0)
    }
    let withPayload = MemoryProbes.inChildProcess("pending-payload") ?? 0
    let withAction = MemoryProbes.inChildProcess("pending-action") ?? 0
    print(
        String(
            format: "memory: a pending dispatch with a one-key payload %.0f bytes, with a typed action %.0f bytes",
            withPayload, withAction))
    let perReactor = MemoryProbes.inChildProcess("reactors") ?? 0
    let isolation = MemoryProbes.isolation(count: 10_000, dispatches: 300_000)
    if let check = isolation.check { failures.append("isolation: \(check)") }
    return (pending, perReactor, isolation.ratio)
}

func printMemory(_ memory: (pending: Double, perReactor: Double, isolation: Double)) {
    print(
        String(
            format: "archive: restoring a 1 MB state from the file store takes %.1f ms",
            MemoryProbes.restoreMilliseconds()))
    print(
        String(
            format: "memory: %.0f resident bytes per pending dispatch, %.0f per reactor (10,000 on one substance)",
            memory.pending, memory.perReactor))
    print(
        String(
            format: "isolation: S1 with 10,000 reactors on other substances runs at %.2f of S1 alone", memory.isolation)
    )
}

/// Peak resident memory of S1 and S3 by dispatch count (10^5, 10^6, 10^7), each run in a process
/// of its own: flat when producers that outrun the bus wait for it (backpressure).
if options.memoryScaling {
    var rows: [(scenario: String, count: Int, peak: Int)] = []
    for scenario in ["S1", "S3"] {
        for count in [100_000, 1_000_000, 10_000_000] {
            progress("\(scenario) ×\(count): peak memory")
            let process = Process()
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--scenario", scenario, "--count", "\(count)", "--json"]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let line = String(decoding: data, as: UTF8.self)
            guard process.terminationStatus == 0,
                let field = line.split(separator: ",").first(where: { $0.hasPrefix("\"peak_rss_bytes\":") }),
                let peak = Int(field.dropFirst("\"peak_rss_bytes\":".count))
            else {
                failures.append("\(scenario) ×\(count): the run failed")
                continue
            }
            rows.append((scenario, count, peak))
        }
    }
    for row in rows {
        if options.json {
            print(
                "{\"memory\":\"scaling\",\"scenario\":\"\(row.scenario)\",\"count\":\(row.count),\"peak_rss_bytes\":\(row.peak)}"
            )
        } else {
            print(
                String(
                    format: "%@ ×%d: peak resident memory %.0f MB", row.scenario, row.count,
                    Double(row.peak) / 1_048_576))
        }
    }
    for failure in failures { print("FAILED \(failure)") }
    exit(failures.isEmpty ? 0 : 1)
}

if options.memoryOnly {
    printMemory(memoryReport())
    for probe in flatnessReport() {
        print(
            String(
                format:
                    "flatness: %@ ×1,000,000: resident memory %.3f× the warm-up (one malloc arena), %.3f× (default arenas)",
                probe.name, probe.oneArena, probe.defaultArenas))
    }
    for failure in failures { print("FAILED \(failure)") }
    exit(failures.isEmpty ? 0 : 1)
}

// The table. By default a quick one, which finishes in a few minutes on a 2-core machine with a
// build running beside it: a quarter of each scenario's count, collections up to 10^4 items and
// dictionaries up to 10^5 entries. `--full` runs the default counts and the big sizes.
let scale = options.full ? 1 : 4
let (tableCollectionSizes, tableDictionarySizes) =
    options.full ? (collectionSizes, dictionarySizes) : (quickCollectionSizes, quickDictionarySizes)
let table = tableScenarios(collections: tableCollectionSizes, dictionaries: tableDictionarySizes)
progress(
    options.full
        ? "the full table: \(table.count) scenarios"
        : "a quick table: \(table.count) scenarios at a quarter of their counts (--full for the long one)")
progress("reference points")
let referenceCount = 1_000_000 / scale
let naive = (0..<3).map { _ in ReferencePoints.naiveQueue(count: referenceCount) }.sorted()[1]
let mutexQueue = (0..<3).map { _ in ReferencePoints.mutexQueue(count: referenceCount) }.sorted()[1]
let busOne = (0..<3).map { _ in ReferencePoints.busAlone(count: referenceCount, producers: 1) }
let busFour = (0..<3).map { _ in ReferencePoints.busAlone(count: referenceCount, producers: 4) }
for run in busOne + busFour { if let check = run.check { failures.append("bus alone: \(check)") } }
let busOneRate = busOne.map(\.rate).sorted()[1]
let busFourRate = busFour.map(\.rate).sorted()[1]

for (index, scenario) in table.enumerated() {
    progress("[\(index + 1)/\(table.count)]")
    results.append(
        run(
            scenario, count: options.count ?? max(1, scenario.defaultCount / scale), reps: options.reps,
            latencySamples: 1_000))
}
failures += results.filter { $0.check != "ok" }.map { "\($0.id): \($0.check)" }

let memory = memoryReport()

if options.json {
    print("{\"reference\":\"naive-dispatch-queue\",\"ops_per_s\":\(Int(naive))}")
    print("{\"reference\":\"mutex-batch-queue\",\"ops_per_s\":\(Int(mutexQueue))}")
    print("{\"reference\":\"flux-bus-1-producer\",\"ops_per_s\":\(Int(busOneRate))}")
    print("{\"reference\":\"flux-bus-4-producers\",\"ops_per_s\":\(Int(busFourRate))}")
    for result in results { print(json(result, naive: naive, s1: s1Rate(in: results))) }
    print(
        "{\"memory\":\"probes\",\"bytes_per_pending_dispatch\":\(Int(memory.pending)),\"bytes_per_reactor\":\(Int(memory.perReactor)),\"isolation_ratio_10000_reactors\":\(String(format: "%.3f", memory.isolation))}"
    )
} else {
    print(
        "reference points (M/s): naive DispatchQueue \(millions(naive)), mutex batch queue \(millions(mutexQueue)), ",
        terminator: "")
    print("FluxBus alone \(millions(busOneRate)) (1 producer), \(millions(busFourRate)) (4 producers)")
    print("")
    printTable(results, naive: naive)
    for (result, size) in zip(results.filter { $0.id == "S8" }, tableCollectionSizes) {
        printFloor(result, size: size)
    }
    for (result, size) in zip(results.filter { $0.id == "S8d" }, tableDictionarySizes) {
        printDictionaryFloor(result, size: size)
    }
    // The journal's cost on a big state's one-entry edit, in this run (issue #51: at most 3x).
    let plain = Dictionary(
        zip(tableDictionarySizes, results.filter { $0.id == "S8d" }).map { ($0, $1.median) }, uniquingKeysWith: { $1 })
    for (result, size) in zip(results.filter { $0.id == "S8dj" }, tableDictionarySizes.suffix(2)) {
        if let without = plain[size] {
            print(
                String(
                    format: "S8dj at %d entries: %.2fx the time of S8d (the journal recording)", size,
                    without / result.median))
        }
    }
    // Big collections against the in-place reference, and against their own smallest size.
    let observable = Dictionary(
        zip(bigCollectionSizes, results.filter { $0.id == "S8do" }).map { ($0, $1.median) }, uniquingKeysWith: { $1 })
    let big = Dictionary(
        zip(bigCollectionSizes, results.filter { $0.id == "S8dt" }).map { ($0, $1.median) }, uniquingKeysWith: { $1 })
    for (size, rate) in big.sorted(by: { $0.key < $1.key }) {
        if let reference = observable[size] {
            print(
                String(
                    format: "S8dt at %d entries: %.1fx the time of S8do (in place, @Observable)", size, reference / rate
                ))
        }
    }
    for id in ["S8t", "S8dt", "S8do"] {
        let rows = results.filter { $0.id == id }
        if rows.count == bigCollectionSizes.count, let first = rows.first, let last = rows.last {
            print(
                String(
                    format: "%@: the rate at %d entries is %.2f of the rate at %d", id, bigCollectionSizes.last!,
                    last.median / first.median, bigCollectionSizes[0]))
        }
    }
    for (result, size) in zip(results.filter { $0.id == "S10" }, durableSizes) {
        let commit = big[size].map {
            String(format: "; %.2f of S8dt's rate at that size (the commit alone)", result.median / $0)
        }
        print(String(format: "S10 at %d accounts: %.0f acknowledgements/s", size, result.median) + (commit ?? ""))
    }
    if let ratio = durableRatio(results) {
        print(
            String(
                format: "S10: the rate at %d accounts is %.2f of the rate at %d", durableSizes.last!, ratio,
                durableSizes[0]))
    }
    print("")
    printMemory(memory)
}
for failure in failures { print("FAILED \(failure)") }
exit(failures.isEmpty ? 0 : 1)
