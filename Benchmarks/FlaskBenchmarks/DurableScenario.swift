import Dispatch
import FlaskAPI
import Foundation
import Synchronization

/// S10's state: a ledger of `size` accounts by id, one credited per request. A `BigDictionary`, as
/// archiving.md and big-collections.md advise for a collection this big: a commit costs the entry.
struct LedgerBenchState: State {
    var accounts: BigDictionary<String, Int> = [:]
}

enum LedgerBenchMixers: SubstanceMixer {
    /// Fills the ledger with the payload's `size` accounts.
    case open
    /// Adds one to the account of the payload's `index`.
    case credit
}

/// How many requests S10 keeps in flight, as a server's connections do (wrk's `-c16`).
let durableRequestsInFlight = 16

/// S10: a durable server's requests. An archived substance of `size` accounts in a directory of its
/// own (a `FileArchiveStore`); each request credits one account (`await Flask.apply`) and is
/// acknowledged once the change is on disk (`try await outcome.stored()`), 16 requests in flight.
/// Reports acknowledgements a second. The archive appends what each write changed and compacts in
/// the background (issue #53): the rate should not fall with `size`.
func durableScenario(size: Int) -> Scenario {
    Scenario(id: "S10", name: "durable-\(size)", defaultCount: 8_000) { counter in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flask-bench-S10-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        // swift-format-ignore: NeverUseForceTry
        let store = try! FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)
        let key = "S10.ledger"
        let ledger = ReactiveSubstance<LedgerBenchState, LedgerBenchMixers>(
            name: "ledger", archive: true, archiveSettings: ArchiveSettings(key: key, archiver: archiver)
        ) { define in
            define(mix: .open) { ledger, payload, react, _ in
                let size = payload?["size"] as? Int ?? 0
                ledger.prop.accounts = BigDictionary(
                    Dictionary(uniqueKeysWithValues: (0..<size).map { (cacheKey($0), 0) }))
                react()
            }
            define(mix: .credit) { ledger, payload, react, _ in
                ledger.prop.accounts[cacheKey(payload?["index"] as? Int ?? 0), default: 0] += 1
                react()
            }
        }
        // Opened and written whole before the clock starts: what follows is what a running server pays.
        blockOn {
            await Flask.apply(LedgerBenchMixers.open, payload: ["size": size])
            try? await ledger.stored()
        }
        let owner = BenchOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: ledger)
        reactor.handler = { _, reaction in reaction.on("accounts") { _ in counter.hit() } }
        let failures = DurableFailures()
        var rig = Rig(
            dispatch: {
                blockOn {
                    let outcome = await Flask.apply(LedgerBenchMixers.credit, payload: ["index": 0])
                    do { try await outcome.stored() } catch { failures.record(error) }
                }
            },
            reactionsPerDispatch: 1,
            verify: { count in
                if let failure = failures.first { return "a write failed: \(failure)" }
                let accounts = ledger.state.accounts
                let credits = accounts.values.reduce(0, +)
                guard credits == count, accounts.count == size else {
                    return "\(credits) credits in \(accounts.count) accounts after \(count) requests"
                }
                // What a restart would restore: the snapshot and the log, read back.
                guard let data = try? store.data(forKey: key),
                    let stored = try? JSONDecoder().decode(LedgerBenchState.self, from: data)
                else { return "the archive cannot be read back" }
                return stored.accounts == accounts ? nil : "the archive differs from the state"
            },
            teardown: {
                Flask.detachReactor(from: owner)
                archiver.waitForWritesInProgress()
                try? FileManager.default.removeItem(at: directory)
            })
        rig.produce = { count in
            blockOn {
                await withTaskGroup(of: Void.self) { group in
                    for first in 0..<durableRequestsInFlight {
                        group.addTask {
                            for request in stride(from: first, to: count, by: durableRequestsInFlight) {
                                let outcome = await Flask.apply(
                                    LedgerBenchMixers.credit,
                                    payload: ["index": collectionPosition(request, size: size)])
                                do { try await outcome.stored() } catch { failures.record(error) }
                            }
                        }
                    }
                }
            }
        }
        return rig
    }
}

/// The sizes of S10 in every table.
let durableSizes = [1_000, 10_000, 100_000]

/// Runs `body` in a task and waits for it on this thread (a producer's or the rig's).
func blockOn(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// The first write S10 saw fail, if any.
final class DurableFailures: Sendable {
    private let failure = Mutex<String?>(nil)

    func record(_ error: any Error) {
        failure.withLock { $0 = $0 ?? "\(error)" }
    }

    var first: String? { failure.withLock { $0 } }
}
