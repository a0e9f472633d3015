// Measures the live session (docs/live-session.md, "What it costs"):
//
//   LiveSessionProbe serve N      records N mixes of a counter, prints the page's address, and
//                                 serves it until standard input closes (the page's load time)
//   LiveSessionProbe dispatch N [view|page]
//                                 N awaited-free dispatches of a counter with a reactor (S1), alone,
//                                 with the view started, or with a page asking as the page does;
//                                 prints the time per dispatch
import FlaskAPI
import FlaskLiveSession
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct CounterState: State {
    var count = 0
    var label = "counter"
}

enum CounterMixers: SubstanceMixer { case increment }

/// The reactor's owner.
final class Owner: Sendable {}

let arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.first, let count = arguments.dropFirst().first.flatMap(Int.init) else {
    print("usage: LiveSessionProbe serve N | dispatch N [view|page]")
    exit(2)
}
let bus = Flux(label: "probe")
let counter = ReactiveSubstance<CounterState, CounterMixers>(name: "counter", bus: bus) { define in
    define(mix: .increment) { counter, _, react, _ in
        counter.prop.count += 1
        react()
    }
}
let owner = Owner()
let reactions = LockedValue(0)
let reactor = Flask.reactor(attachedTo: owner, mixing: counter)
reactor.handler = { _, reaction in reaction.on("count") { _ in reactions.withLock { $0 += 1 } } }

/// The probe's work. Run from a synchronous main (below), not with top-level `await`: valgrind
/// (callgrind, which counts the instructions) stops with an internal error on the main thread's
/// `sigsuspend` that top-level concurrency parks it in.
func probe() async throws {
    switch mode {
    case "serve":
        let view = try await LiveSession.start(buses: [bus], substances: [counter], maxAge: count, printsAddress: false)
        for _ in 0..<count { bus.dispatch(CounterMixers.increment) }
        await bus.flush()
        FileHandle.standardOutput.write(Data((view.address + "\n").utf8))
        while readLine() != nil {}
        await view.stop()
    case "dispatch":
        let with = arguments.dropFirst(2).first ?? "alone"
        var view: LiveSession?
        var asking: Task<Void, Never>?
        if with != "alone" {
            view = try await LiveSession.start(buses: [bus], substances: [counter], printsAddress: false)
        }
        if with == "page", let view {
            // Asks as the page does: what is new, four times a second.
            asking = Task {
                var last: UInt64 = 0
                while !Task.isCancelled {
                    let url = URL(
                        string: view.address.replacingOccurrences(of: "/?", with: "/api/entries?") + "&after=\(last)")!
                    if let (data, _) = try? await URLSession.shared.data(from: url),
                        let body = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                        let entries = body["entries"] as? [[String: Any]], let serial = entries.last?["serial"] as? Int
                    {
                        last = UInt64(serial)
                    }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
        }
        let start = ContinuousClock.now
        for _ in 0..<count { bus.dispatch(CounterMixers.increment) }
        await bus.flush()
        let elapsed = ContinuousClock.now - start
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        print(
            String(
                format: "%@: %.0f ns a dispatch (%d reactions)", with, nanoseconds / Double(count),
                reactions.withLock { $0 }))
        asking?.cancel()
        await view?.stop()
    default:
        print("usage: LiveSessionProbe serve N | dispatch N [view|page]")
        exit(2)
    }
}

// Detached: a task made here would run on the main actor, whose thread waits below.
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do { try await probe() } catch { print("failed: \(error)") }
    finished.signal()
}
finished.wait()
