import Dispatch
import FlaskLocking
import FlaskTestSupport
import FluxBus
import Testing

@Suite("Flux: FIFO order and re-entrancy")
struct FluxOrderTests {
    @Test("mixers run in enqueue order and observers get name and payload")
    func fifoSingleProducer() async {
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<Int>()
        bus.observe("tick", owner: owner) { _, event in
            #expect(event.mixer == "tick")
            seen.append(event.payload?["n"] as? Int ?? -1)
        }
        for n in 0..<1_000 { bus.dispatch("tick", payload: ["n": n]) }
        await bus.flush()
        #expect(seen.all == Array(0..<1_000))
    }

    @Test("8 threads enqueueing at once: every item runs once, per-producer order holds")
    func fifoEightProducers() async {
        let bus = Flux()
        let seen = Recorder<(Int, Int)>()
        let producers = 8
        let perProducer = 5_000
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for n in 0..<perProducer {
                bus.perform { seen.append((producer, n)) }
            }
        }
        await bus.flush()
        let all = seen.all
        #expect(all.count == producers * perProducer)
        for producer in 0..<producers {
            let mine = all.filter { $0.0 == producer }.map(\.1)
            #expect(mine == Array(0..<perProducer))
        }
    }

    @Test("work dispatched from a running item is queued behind it, never re-entrant")
    func noReentrancy() async {
        let bus = Flux()
        let log = Recorder<String>()
        // Queue both items before either runs.
        let lock = bus.lock()
        bus.perform {
            log.append("outer begins")
            bus.perform { log.append("inner") }
            log.append("outer ends")
        }
        bus.perform { log.append("next") }
        lock.release()
        // Waited for by count: a flush queued before the outer item ran comes before the inner one
        // (a serial run of the suite found it so).
        await log.waitForCount(4)
        await bus.flush()
        #expect(log.all == ["outer begins", "outer ends", "next", "inner"])
    }

    @Test("isCurrent is true only inside a work item")
    func isCurrent() async {
        let bus = Flux()
        let inside = Recorder<Bool>()
        #expect(!bus.isCurrent)
        bus.perform { inside.append(bus.isCurrent) }
        await bus.flush()
        #expect(inside.all == [true])
    }

    @Test("independent buses do not share observers")
    func independentBuses() async {
        let a = Flux()
        let b = Flux()
        let owner = Owner()
        let seen = Recorder<String>()
        a.observe("x", owner: owner) { _, _ in seen.append("a") }
        b.dispatch("x")
        await b.flush()
        await a.flush()
        #expect(seen.all.isEmpty)
    }

    @Test(
        "a lock taken in the middle of a batch pauses the rest, which the report lists, a purge drops, a release resumes in order"
    )
    func interruptedBatch() async {
        let bus = Flux()
        let ran = Recorder<Int>()
        let gate = bus.lock()
        let paused = LockedValue<FluxLock?>(nil)
        for index in 0..<6 {
            bus.perform {
                ran.append(index)
                if index == 1 { paused.withLock { $0 = bus.lock() } }
            }
        }
        gate.release()
        // The drain runs on the bus's thread: the first two items are waited for, then exclusive
        // work (queued after them) keeps running while the rest of the batch waits. Queued before
        // the drain took its batch, the exclusive item ran first, and the test saw nothing run.
        await ran.waitForCount(2)
        await bus.settleExclusive()
        #expect(ran.all == [0, 1])
        #expect(bus.lockReport().queuedCount == 4)
        paused.withLock { $0 }?.release()
        await bus.flush()
        #expect(ran.all == [0, 1, 2, 3, 4, 5])

        let second = bus.lock()
        for index in 10..<14 {
            bus.perform {
                ran.append(index)
                if index == 11 { _ = bus.lock() }
            }
        }
        second.release()
        await ran.waitForCount(8)
        await bus.settleExclusive()
        #expect(bus.purge() == 2, "the two suspended items are dropped")
        bus.removeLocks()
        await bus.flush()
        #expect(ran.all == [0, 1, 2, 3, 4, 5, 10, 11])
    }
}
