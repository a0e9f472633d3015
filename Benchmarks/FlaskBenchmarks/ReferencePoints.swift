import Dispatch
import FlaskAPI
import Foundation

/// What this machine does without Flask, measured in the same run so that figures from different
/// machines compare as ratios.
enum ReferencePoints {
    /// A closure handed to a serial `DispatchQueue` per item, doing nothing.
    static func naiveQueue(count: Int) -> Double {
        let queue = DispatchQueue(label: "naive")
        let done = DispatchSemaphore(value: 0)
        let box = ReactionCounter(target: count)
        let start = now()
        for _ in 0..<count { queue.async { box.hit() } }
        done.signal()
        box.done.wait()
        return Double(count) / (Double(now() - start) / 1e9)
    }

    /// A mutex-protected array of closures drained in batches by one thread.
    static func mutexQueue(count: Int) -> Double {
        let queue = BatchQueue()
        let box = ReactionCounter(target: count)
        let start = now()
        for _ in 0..<count { queue.append { box.hit() } }
        box.done.wait()
        queue.stop()
        return Double(count) / (Double(now() - start) / 1e9)
    }

    /// The bus alone: named mixers through an independent `Flux` to one observer.
    static func busAlone(count: Int, producers: Int) -> (rate: Double, check: String?) {
        let bus = Flux(label: "bench.bus")
        let owner = Observer()
        let box = ReactionCounter(target: count)
        bus.observe("tick", owner: owner) { _, _ in box.hit() }
        let settled = DispatchSemaphore(value: 0)
        bus.perform { settled.signal() }
        settled.wait()
        let start = now()
        if producers == 1 {
            for _ in 0..<count { bus.dispatch("tick") }
        } else {
            DispatchQueue.concurrentPerform(iterations: producers) { _ in
                for _ in 0..<(count / producers) { bus.dispatch("tick") }
            }
        }
        box.done.wait()
        let rate = Double(count) / (Double(now() - start) / 1e9)
        return (rate, box.count == count ? nil : "delivered \(box.count) of \(count)")
    }

    final class Observer: Sendable {}
}

/// A queue of closures behind a condition variable, drained by its own thread in batches.
///
/// `@unchecked Sendable`: `items` and `running` are only touched with `condition` locked.
final class BatchQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [() -> Void] = []
    private var running = true

    init() {
        let thread = Thread { [self] in drain() }
        thread.start()
    }

    func append(_ item: @escaping () -> Void) {
        condition.lock()
        items.append(item)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        running = false
        condition.signal()
        condition.unlock()
    }

    private func drain() {
        var batch: [() -> Void] = []
        while true {
            condition.lock()
            while items.isEmpty && running { condition.wait() }
            if !running && items.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &items)
            condition.unlock()
            for item in batch { item() }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
