import Dispatch
import FluxBus

extension Flux {
    /// Suspends until the exclusive lane has run everything enqueued before: proves the bus is
    /// alive and has done all it could, even while the main lane is locked.
    func settleExclusive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            performExclusive { continuation.resume() }
        }
    }
}

/// Holds a bus's thread in a work item, so that its main lane fills: not a lock, since producers
/// do not wait for room while a lock pauses the lane.
final class BusPause: Sendable {
    private let gate = DispatchSemaphore(value: 0)

    init(_ bus: Flux) {
        let running = DispatchSemaphore(value: 0)
        let gate = self.gate
        bus.perform {
            running.signal()
            gate.wait()
        }
        running.wait()
    }

    func release() { gate.signal() }
}
