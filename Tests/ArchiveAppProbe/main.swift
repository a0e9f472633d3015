// A child process for the archive tests, written as an app would be: a named substance that
// archives with the default store, mixed through `Flask`. Modes:
//
// - `write <n>`: sets the counter to n and exits normally (the exit flushes the pending write).
// - `read`: prints the counter it restored.
// - `stream <delay> <maxDelay> <interval ms> <log file>`: sets the counter to 1, 2, 3, ... every
//   interval, appending "<n> <uptime ns>" to the log as each is set, until it is killed.
// - `full-disk`: archives 1, then sets 2 while files may hold no more than 8 bytes (the write
//   fails as on a full disk; prints "failed" and "pending" when it did and the key stayed pending),
//   lifts the limit and exits normally: the exit flush must write 2.
// - `terminate flush|noflush`: (with `flush`, asks for `Archiver.flushOnTermination()`), sets the
//   counter to 42 with a write an hour away, prints "ready" and waits for a signal.
// - `durable`: a server's way: 8 tasks handle requests in a loop, each appending its id to a
//   ledger with `try await Flask.apply(...).stored()`, then printing "ack <id>", until
//   the process is killed. The ledger's writes are an hour's debounce away: only `stored()` writes.
// - `read-ledger`: prints the ids the ledger restored, one per line.
// - `append <first> <count> [hold]`: restores the ledger (printing "restored" or "refused <reason>"
//   when another process owns it), then appends ids first, first + 1, ... one at a time, printing
//   "ack <id>" once each is stored and "refused <id>" when the store refuses it, then
//   "diagnostics <n>", and exits (with `hold`, once its standard input has ended).
import FlaskAPI
import Foundation
import Synchronization

struct ProbeState: State {
    var counter = 0
}

enum ProbeMixers: SubstanceMixer {
    case set
}

/// The archive timing the mode asks for (read-only after launch).
enum ProbeTiming {
    nonisolated(unsafe) static var delay = 2.0
    nonisolated(unsafe) static var maxDelay = Archiver.defaultMaxDelay
    nonisolated(unsafe) static var log: FileHandle?
}

/// `@unchecked Sendable`: `ReactiveSubstance`'s reasoning; it adds no stored property.
final class ProbeSubstance: ReactiveSubstance<ProbeState, ProbeMixers>, @unchecked Sendable {
    override func archiveDelay() -> Double { ProbeTiming.delay }
    override func archiveMaxDelay() -> Double { ProbeTiming.maxDelay }

    override func defineMixers() {
        define(mix: .set) { payload, react, _ in
            let counter = payload?["counter"] as? Int ?? 0
            self.prop.counter = counter
            ProbeTiming.log?.write(Data("\(counter) \(DispatchTime.now().uptimeNanoseconds)\n".utf8))
            react()
        }
    }
}

struct LedgerState: State {
    var ids: [Int] = []
}

struct Append: FlaskAction {
    let id: Int
}

enum LedgerMixers: SubstanceMixer { case none }

/// The ledger of the `durable` mode: a substance made with its mixers, archived, its writes an hour
/// away unless asked for.
func makeLedger() -> ReactiveSubstance<LedgerState, LedgerMixers> {
    ProbeTiming.delay = 3_600
    ProbeTiming.maxDelay = 3_600
    return LedgerSubstance(name: "ledger", archive: true) { define in
        define(Append.self) { ledger, append, react, _ in
            ledger.prop.ids.append(append.id)
            react()
        }
    }
}

/// `@unchecked Sendable`: `ReactiveSubstance`'s reasoning; it adds no stored property.
final class LedgerSubstance: ReactiveSubstance<LedgerState, LedgerMixers>, @unchecked Sendable {
    override func archiveDelay() -> Double { ProbeTiming.delay }
    override func archiveMaxDelay() -> Double { ProbeTiming.maxDelay }
}

/// The ids of the `durable` mode's requests, taken in turn from any task.
final class IDs: Sendable {
    private let last = Atomic<Int>(0)

    func take() -> Int { last.add(1, ordering: .relaxed).newValue }
}

/// The `durable` mode: 8 request loops acknowledging each append once it is stored.
func serveDurably() async {
    let ledger = makeLedger()
    let next = IDs()
    say("ready")
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<8 {
            group.addTask {
                while true {
                    let id = next.take()
                    do {
                        // As docs/archiving.md's server does: a mix that did not apply throws.
                        try await Flask.apply(Append(id: id)).stored()
                        say("ack \(id)")
                    } catch {
                        say("failed \(id)")
                    }
                }
            }
        }
    }
    withExtendedLifetime(ledger) {}  // the loops never end: the ledger lives until the kill
}

/// The `append` mode: one request after another, each acknowledged only once stored.
func appendDurably(first: Int, count: Int) async {
    let reports = Mutex<[String]>([])
    Flask.bus.diagnostics = { diagnostic in reports.withLock { $0.append("\(diagnostic)") } }
    let ledger = makeLedger()
    await ledger.bus.flush()
    let refusal = reports.withLock { $0.first { $0.contains("archive-key-in-use") } }
    say(refusal.map { "refused \($0)" } ?? "restored")
    for id in first..<(first + count) {
        let outcome = await Flask.apply(Append(id: id))
        do {
            try await outcome.stored()
            say("ack \(id)")
        } catch let problem where problem.kind == .keyInUse {
            say("refused \(id)")
        } catch {
            // Said with its error: a test that counts the ids acknowledged shows why one was not.
            say("failed \(id) \(error.kind) \(error)")
        }
    }
    say("diagnostics \(reports.withLock { $0.filter { $0.contains("archive-key-in-use") }.count })")
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "write" where arguments.count == 2:
    let substance = ProbeSubstance(name: "probe", archive: true)
    Flask.substances(reactTo: ProbeMixers.set, payload: ["counter": Int(arguments[1]) ?? 0])
    await substance.bus.flush()
    exit(0)
case "read":
    say("\(ProbeSubstance(name: "probe", archive: true).state.counter)")
case "stream" where arguments.count == 5:
    ProbeTiming.delay = Double(arguments[1]) ?? 2
    ProbeTiming.maxDelay = Double(arguments[2]) ?? 5
    let interval = UInt32(arguments[3]) ?? 20
    _ = FileManager.default.createFile(atPath: arguments[4], contents: nil)
    ProbeTiming.log = FileHandle(forWritingAtPath: arguments[4])
    let substance = ProbeSubstance(name: "stream", archive: true)
    say("ready")
    var counter = 0
    while true {
        counter += 1
        // Used in the loop: a release build frees what is not used again.
        withExtendedLifetime(substance) { Flask.substances(reactTo: ProbeMixers.set, payload: ["counter": counter]) }
        usleep(interval * 1_000)
    }
case "terminate" where arguments.count == 2:
    if arguments[1] == "flush" { Archiver.flushOnTermination() }
    ProbeTiming.delay = 3_600
    ProbeTiming.maxDelay = 3_600
    let substance = ProbeSubstance(name: "term", archive: true)
    Flask.substances(reactTo: ProbeMixers.set, payload: ["counter": 42])
    await substance.bus.flush()
    say("ready")
    // Kept alive while it waits: a release build frees what is not used again (and a loop that
    // never ends has no end of lifetime to extend to, so the substance is used in it).
    while true { withExtendedLifetime(substance) { _ = sleep(60) } }
case "durable":
    await serveDurably()
case "append" where arguments.count == 3 || (arguments.count == 4 && arguments[3] == "hold"):
    await appendDurably(first: Int(arguments[1]) ?? 0, count: Int(arguments[2]) ?? 0)
    // Held: the process (and what it owns) lives on until its standard input ends.
    if arguments.count == 4 { _ = FileHandle.standardInput.readDataToEndOfFile() }
    exit(0)
case "read-ledger":
    let ledger = makeLedger()
    for id in ledger.state.ids { say("\(id)") }
#if os(Linux)
    case "full-disk":
        signal(SIGXFSZ, SIG_IGN)
        // Printed in release builds too (the default handler prints in debug builds only).
        Flask.bus.diagnostics = { say("\($0)") }
        let substance = ProbeSubstance(name: "probe", archive: true)
        Flask.substances(reactTo: ProbeMixers.set, payload: ["counter": 1])
        try await substance.archiveNowAndWait()
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
        let lifted = limit
        limit.rlim_cur = 8
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
        Flask.substances(reactTo: ProbeMixers.set, payload: ["counter": 2])
        do {
            try await substance.archiveNowAndWait()
        } catch {
            say("failed")
        }
        if Archiver.shared.pendingKeys.contains(substance.archiveKey()) { say("pending") }
        limit = lifted
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
        exit(0)
#endif
default:
    FileHandle.standardError.write(Data("usage: ArchiveAppProbe write <n> | read | stream ... | terminate ...\n".utf8))
    exit(2)
}
