import Dispatch
import FlaskTestSupport
import Foundation
import Testing

@testable import FluxBus

/// The main lane in chunks (`FluxLane`): whatever the appends and takes, the items come out in the
/// order they went in, each once, and the count says how many wait.
@Suite("The main lane, in chunks")
struct FluxLaneTests {
    private static func item(_ number: Int) -> FluxItem {
        .mixer(FluxMixerName("n\(number)"), nil, nil, origin: nil)
    }

    private static func numbers(_ items: [FluxItem]) -> [Int] {
        items.map { Int($0.mixer.name.dropFirst())! }
    }

    @Test("appends and takes in random runs, across chunk boundaries, match a plain array")
    func matchesAModel() {
        var generator = SplitMix(seed: 7)
        let capacity = FluxLane.chunkCapacity
        for run in 0..<20 {
            var lane = FluxLane()
            var model: [Int] = []
            var taken: [Int] = []
            var next = 0
            var batch: [FluxItem] = []
            for _ in 0..<200 {
                // Bursts of up to three chunks and a few, so that chunks fill, queue and empty.
                let appends = Int(generator.next() % UInt64(3 * capacity + 7))
                for _ in 0..<appends {
                    lane.append(Self.item(next))
                    model.append(next)
                    next += 1
                }
                #expect(lane.count == model.count)
                if generator.next() % 3 != 0 {
                    let count = lane.take(into: &batch)
                    #expect(count == batch.count)
                    #expect(batch.count <= capacity, "a batch is at most one chunk")
                    #expect(lane.isEmpty || !batch.isEmpty, "a lane with items hands some over")
                    let numbers = Self.numbers(batch)
                    #expect(numbers == Array(model.prefix(numbers.count)), "run \(run): the oldest items first")
                    model.removeFirst(numbers.count)
                    taken += numbers
                    batch.removeAll(keepingCapacity: true)
                }
                let prefix = Self.numbers(lane.prefix(capacity + 3))
                #expect(prefix == Array(model.prefix(capacity + 3)))
            }
            let rest = Self.numbers(lane.takeAll())
            #expect(rest == model)
            #expect(lane.isEmpty && lane.count == 0)
            #expect(taken + rest == Array(0..<next), "every item once, in order")
        }
    }

    #if _pointerBitWidth(_64)
        @Test("a waiting dispatch takes a 96-byte slot: where it came from packed beside the event's kind")
        func itemSize() {
            #expect(MemoryLayout<FluxOrigin?>.size == 50)
            #expect(MemoryLayout<FluxItem>.stride == 96)
        }
    #endif

    @Test("a bus paused behind several chunks' worth of dispatches runs them all in order, and a purge drops them all")
    func busAcrossChunks() async {
        let bus = Flux(label: "lane.chunks")
        let owner = Owner()
        let seen = Recorder<Int>()
        bus.observe("tick", owner: owner) { _, event in seen.append(event.payload?["n"] as? Int ?? -1) }
        let count = 3 * FluxLane.chunkCapacity + 5
        let pause = BusPause(bus)
        for n in 0..<count { bus.dispatch("tick", payload: ["n": n]) }
        #expect(bus.waitingItemCount == count)
        pause.release()
        await bus.flush()
        #expect(seen.all == Array(0..<count))

        let second = BusPause(bus)
        for n in 0..<count { bus.dispatch("tick", payload: ["n": n]) }
        #expect(bus.purge() == count, "a purge drops every chunk")
        #expect(bus.waitingItemCount == 0)
        second.release()
        await bus.flush()
        #expect(seen.all.count == count, "the purged dispatches never ran")
        withExtendedLifetime(owner) {}
    }
}

extension FluxLaneTests {
    /// Kept from a stress client (6 producers, locks, a purge, under the thread sanitizer): what
    /// `purge()` counts is what waited in the queue; the rest of the running batch, dropped too,
    /// is at most one chunk.
    @Test(
        "producers flooding a small lane through locks and a purge: each one's order holds, the uncounted drops a chunk at most"
    )
    func floodWithLocksAndPurge() async {
        let bus = Flux(label: "lane.flood")
        bus.backlogLimit = 700
        let owner = Owner()
        let seen = Recorder<(Int, Int)>()
        bus.observe("tick", owner: owner) { _, event in
            seen.append((event.payload?["p"] as? Int ?? -1, event.payload?["n"] as? Int ?? -1))
        }
        let producers = 3
        let perProducer = 5_000
        let done = DispatchGroup()
        for producer in 0..<producers {
            done.enter()
            Thread.detachNewThread {
                for n in 0..<perProducer { bus.dispatch("tick", payload: ["p": producer, "n": n]) }
                done.leave()
            }
        }
        for _ in 0..<5 {
            let lock = bus.lock()
            lock.release()
        }
        let purged = bus.purge()
        done.wait()
        await bus.flush()
        let all = seen.all
        let total = producers * perProducer
        #expect(all.count <= total - purged)
        #expect(all.count >= total - purged - FluxLane.chunkCapacity)
        for producer in 0..<producers {
            let numbers = all.filter { $0.0 == producer }.map(\.1)
            #expect(numbers == numbers.sorted(), "producer \(producer)'s dispatches ran in order")
        }
        withExtendedLifetime(owner) {}
    }
}

/// A small deterministic generator (SplitMix64), so that a failing run can be replayed.
private struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
