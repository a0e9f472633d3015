import Dispatch
import FlaskTestSupport
import FluxBus
import Foundation
import Reactors
import Substances
import Synchronization
import Testing

/// What a ledger saw: the last sequence number of each producer, and counts.
struct LedgerState: State {
    var last = [Int](repeating: 0, count: StressTests.producers)
    var total = 0
    var exclusive = 0
    var outOfOrder = 0
}

enum LedgerMixers: SubstanceMixer {
    case record, exclusive
}

/// Records every producer's numbered mixes and notices any that arrive out of order.
final class Ledger: ReactiveSubstance<LedgerState, LedgerMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .record) { payload, react, abort in
            guard let producer = payload?["p"] as? Int, let sequence = payload?["s"] as? Int else { return abort() }
            if sequence != self.prop.last[producer] + 1 { self.prop.outOfOrder += 1 }
            self.prop.last[producer] = sequence
            self.prop.total += 1
            react()
        }
        define(mix: .exclusive) { _, react, _ in
            self.prop.exclusive += 1
            react()
        }
    }
}

/// Runs `body` on a thread of its own. Not a Dispatch queue: busy readers would take every worker
/// of the global pool (two on this machine) and starve the bus's queue, which targets that pool.
func spawn(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    group.enter()
    Thread {
        body()
        group.leave()
    }.start()
}

@Suite("Stress: many producers, locks, exclusive mixes, reactors coming and going, readers")
struct StressTests {
    static let producers = 8
    /// Mixes per producer: 2,000 in CI, 100,000 with FLASK_LONG=1.
    static var perProducer: Int { ProcessInfo.processInfo.environment["FLASK_LONG"] == nil ? 2_000 : 100_000 }

    @Test("every mix is applied exactly once, in each producer's order, and the final states are exact")
    func stress() async {
        let perProducer = StressTests.perProducer
        let bus = Flux(label: "stress")
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        let ledgers = (0..<3).map { Ledger(name: "ledger\($0)", bus: bus) }
        let record = FluxMixerName("record", domain: LedgerMixers.self)
        let exclusive = FluxMixerName("exclusive", domain: LedgerMixers.self)

        // A reactor on every ledger: counts the reactions, releases exclusive mixes' locks, and now
        // and then pauses the bus with a lock that another thread releases.
        let owner = TestOwner()
        let reactor = Reactor(owner: owner, mixing: ledgers)
        let reactions = Atomic<Int>(0)
        let pauses = Atomic<Int>(0)
        let first = ledgers[0]
        reactor.handler = { _, reaction in
            reaction.on("total") { _ in reactions.add(1, ordering: .relaxed) }
            guard let atFirst = reaction.at(first) else { return }
            atFirst.onLock?.release()
            atFirst.on("total") { change in
                let total: Int = change.newValue() ?? 0
                if total % 97 == 0 {
                    pauses.add(1, ordering: .relaxed)
                    let lock = bus.lock()
                    DispatchQueue.global().async { lock.release() }
                }
            }
        }

        let producing = Atomic<Bool>(true)
        let group = DispatchGroup()
        // Readers: a snapshot is never torn (the total is the sum of the last sequence numbers).
        let tornReads = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        for reader in 0..<2 {
            spawn(in: group) {
                while producing.load(ordering: .relaxed) {
                    let state = ledgers[reader].state
                    if state.outOfOrder == 0, state.total != state.last.reduce(0, +) {
                        tornReads.add(1, ordering: .relaxed)
                    }
                    reads.add(1, ordering: .relaxed)
                }
            }
        }
        // Reactors attach and detach while the mixes flow.
        let churned = Atomic<Int>(0)
        spawn(in: group) {
            var index = 0
            while producing.load(ordering: .relaxed) || index < 100 {
                let churnOwner = TestOwner()
                let churn = Reactor(owner: churnOwner, mixing: [ledgers[index % 3]])
                churn.handler = { _, reaction in reaction.on("total") { _ in } }
                churn.detach()
                index += 1
                churned.add(1, ordering: .relaxed)
            }
        }
        // Producers: numbered mixes, and an exclusive mix every 100th.
        let producersDone = DispatchGroup()
        for producer in 0..<StressTests.producers {
            spawn(in: producersDone) {
                for sequence in 1...perProducer {
                    bus.dispatch(record, payload: ["p": producer, "s": sequence])
                    if sequence % 100 == 0 { _ = bus.lock(withMixer: exclusive) }
                }
            }
        }
        // The readers and the churn stop as soon as the producers are done, from Dispatch's pool:
        // stopped after this task resumed, they spun on while the test waited for a thread of the
        // cooperative pool, which other tests may hold. Under the thread sanitizer every access of
        // a generic type's metadata takes a lock in the runtime, and spinning threads starved the
        // whole run.
        await withCheckedContinuation { continuation in
            producersDone.notify(queue: .global()) {
                producing.store(false, ordering: .relaxed)
                continuation.resume()
            }
        }
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
        await bus.flush()

        let mixes = StressTests.producers * perProducer
        let exclusives = StressTests.producers * (perProducer / 100)
        for ledger in ledgers {
            let state = ledger.state
            #expect(state.last == [Int](repeating: perProducer, count: StressTests.producers), "\(ledger.name())")
            #expect(state.total == mixes)
            #expect(state.outOfOrder == 0)
            #expect(state.exclusive == exclusives)
        }
        #expect(reactions.load(ordering: .relaxed) == 3 * mixes, "one reaction per real change")
        #expect(pauses.load(ordering: .relaxed) == mixes / 97)
        #expect(tornReads.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(churned.load(ordering: .relaxed) >= 100)
        #expect(bus.openLocks.isEmpty)
        // The producers flood the bus on purpose: a backlog report is what it should say then (at
        // full size, 800,000 mixes queue faster than the bus runs them); anything else is a fault.
        let faults = diagnostics.all.filter { $0.code != .backlog }
        #expect(faults.isEmpty, "\(faults.prefix(3))")
        for ledger in ledgers { #expect(await ledger.observerCount() == 1, "churned reactors are all gone") }
        withExtendedLifetime(owner) {}
    }
}
