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
