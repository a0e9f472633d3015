import FlaskLocking

extension Flux {
    /// Dispatches a mixer on the main lane and suspends until it has run: its observers were
    /// called (so the receivers on the bus have done their work). Returns what they recorded.
    ///
    /// The dispatch keeps its place in the FIFO: it runs after everything enqueued before it. When
    /// the bus is idle and the caller is not on the main actor, the mix runs on the caller's own
    /// thread, right away (it is next in FIFO order anyway): no hop to the bus's thread and back.
    ///
    /// - Parameters:
    ///   - mixer: the name observers registered with ``observe(_:owner:_:)``.
    ///   - payload: handed to every observer.
    ///   - isolation: the caller's actor; leave the default.
    ///   - fileID: where the dispatch is, for ``FluxEvent/origin``; leave the default.
    ///   - line: where the dispatch is; leave the default.
    ///   - function: where the dispatch is; leave the default.
    public func dispatchAndWait(
        _ mixer: FluxMixerName, payload: FluxPayload? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function, isolation: isolated (any Actor)? = #isolation
    ) async -> FluxReceipt {
        await dispatchAndWait(
            FluxItem.mixer(mixer, payload, nil, origin: FluxOrigin(fileID: fileID, line: line, function: function)),
            isolation: isolation)
    }

    /// ``dispatchAndWait(_:payload:fileID:line:function:isolation:)`` for a mixer carrying `value`
    /// (a value of your own type).
    public func dispatchAndWait(
        _ mixer: FluxMixerName, payload: FluxPayload? = nil, value: any Sendable, fileID: StaticString = #fileID,
        line: UInt = #line, function: StaticString = #function, isolation: isolated (any Actor)? = #isolation
    ) async -> FluxReceipt {
        await dispatchAndWait(
            FluxItem.mixer(
                mixer, payload, carrying: FluxValueCarrier.carrying(value, lock: nil),
                origin: FluxOrigin(fileID: fileID, line: line, function: function)),
            isolation: isolation)
    }

    /// Dispatches an item of the modules above the bus (a mixer carrying a value, say) and suspends
    /// until it has run, as ``dispatchAndWait(_:payload:fileID:line:function:isolation:)``.
    package func dispatchAndWait(
        _ mixer: FluxMixerName, payload: FluxPayload?, value: (any Sendable)?, origin: FluxOrigin?,
        isolation: isolated (any Actor)?
    ) async -> FluxReceipt {
        if let value {
            return await dispatchAndWait(
                FluxItem.mixer(mixer, payload, carrying: FluxValueCarrier.carrying(value, lock: nil), origin: origin),
                isolation: isolation)
        }
        return await dispatchAndWait(FluxItem.mixer(mixer, payload, nil, origin: origin), isolation: isolation)
    }

    private func dispatchAndWait(_ item: FluxItem, isolation: isolated (any Actor)?) async -> FluxReceipt {
        // Made here and filled under its lock on the bus: everything the dispatcher reads crosses
        // threads through that lock, which the thread sanitizer sees (it does not see the
        // concurrency runtime's own ordering when the bus resumes before the task has suspended).
        let receipt = FluxReceipt()
        // An idle bus runs the mix on the awaiting task's thread: it would be next in FIFO order
        // anyway, and the task would only wait for it. This spares two thread hops (to the bus's
        // executor and back to the task), which cost many times the mix itself. Not on the main
        // actor, which keeps bus work off the UI's thread.
        if FluxProducerThread.mayRunBusWork(isolation: isolation), claimIdleBus() {
            runClaimed { run(item, awaitedWith: receipt) }
            return receipt
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let task = FluxTask(
                { [self] in
                    run(item, awaitedWith: receipt)
                    continuation.resume()
                },
                // Purged before it ran: the caller resumes with an empty receipt (nobody reached).
                whenDropped: { continuation.resume() })
            // Named by its mixer, so that a lock report says what waits (an awaited dispatch
            // behind a lock its own caller holds never runs: docs/locks.md).
            enqueue(.task(task, runningMixer: item.mixer, origin: item.event.origin))
        }
        return receipt
    }

    /// Runs an awaited dispatch's mix, on the bus, recording what it did in `receipt`.
    private func run(_ item: FluxItem, awaitedWith receipt: FluxReceipt) {
        let called = withReceipt(receipt) {
            if let pipeline = confined.state.value.pipeline.map(Unretained.init) {
                return mix(item, through: pipeline)
            }
            let called = registry.deliver(item.event)
            item.lock?.mixRan()
            return called
        }
        receipt.observersCalled = called
    }

    /// Runs `body` with `receipt` as the active receipt (on the bus), for awaited work. A receipt
    /// active around it (a mix seen by middleware) also gets what was recorded.
    func withReceipt<T>(_ receipt: FluxReceipt, _ body: () -> T) -> T {
        let previous = confined.state.value.activeReceipt
        confined.state.value.activeReceipt = receipt
        defer {
            confined.state.value.activeReceipt = previous
            if let previous, previous !== receipt {
                previous.absorb(receipt)
            }
        }
        return body()
    }

    /// A number of the work item running now, different for each item of this bus (on the bus
    /// only): work done under one number was done by one item, a task's included. A hook for the
    /// layers above that group what one item did.
    @_spi(FlaskInternals) public var workItemSerial: UInt64 { confined.state.value.itemSerial }

    /// The receipt of the awaited dispatch running now, if any (on the bus only). A hook for the
    /// receivers of the layers above, which record what they did in it.
    @_spi(FlaskInternals) public var activeReceipt: FluxReceipt? { confined.state.value.activeReceipt }
}
