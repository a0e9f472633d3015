import FlaskLocking

/// What the receivers of one awaited dispatch did: see ``Flux/dispatchAndWait(_:payload:)``.
///
/// Receivers add records while the dispatch runs on the bus; the dispatcher reads them once it
/// resumes, after the dispatch has finished.
///
/// Its contents are behind a lock: the bus writes them and the resumed dispatcher reads them, and
/// the thread sanitizer does not see a continuation's resume as ordering the two.
public final class FluxReceipt: Sendable {
    private let contents = LockedValue<(observersCalled: Int, records: [any Sendable])>((0, []))

    /// A receipt to fill on the bus; `dispatchAndWait` and awaited chains make their own.
    package init() {}

    /// The observers of the mixer that were called.
    public internal(set) var observersCalled: Int {
        get { contents.withLock { $0.observersCalled } }
        set { contents.withLock { $0.observersCalled = newValue } }
    }

    /// What the receivers recorded, in the order they ran (substances record their outcome).
    public var records: [any Sendable] { contents.withLock { $0.records } }

    /// Runs `work` on `bus`'s main lane as a mix named `label`, with this receipt active, and
    /// returns once it has run.
    package func await(on bus: Flux, mix label: FluxMixerName, _ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            bus.perform(mix: label) { [self] in
                bus.withReceipt(self, work)
                continuation.resume()
            }
        }
    }

    /// Empties the receipt, for reuse.
    func reset() {
        contents.withLock { $0 = (0, []) }  // a report may still share the records' storage
    }

    /// Adds a record; called by receivers on the bus.
    package func record(_ record: any Sendable) {
        contents.withLock { $0.records.append(record) }
    }
}

extension Flux {
    /// Dispatches a mixer on the main lane and suspends until it has run: its observers were
    /// called (so substances committed and their bus reactors reacted). Returns what they recorded.
    ///
    /// The dispatch keeps its place in the FIFO: it runs after everything enqueued before it.
    public func dispatchAndWait(_ mixer: FluxMixerName, payload: FluxPayload? = nil) async -> FluxReceipt {
        await dispatchAndWait(FluxItem.mixer(mixer, payload, nil))
    }

    /// ``dispatchAndWait(_:payload:)`` for a mixer carrying `value` (a typed action, say).
    public func dispatchAndWait(_ mixer: FluxMixerName, payload: FluxPayload? = nil, value: any Sendable) async
        -> FluxReceipt
    {
        await dispatchAndWait(FluxItem.mixer(mixer, payload, carrying: FluxValueCarrier(value, lock: nil)))
    }

    private func dispatchAndWait(_ item: FluxItem) async -> FluxReceipt {
        // Made here and filled under its lock on the bus: everything the dispatcher reads crosses
        // threads through that lock, which the thread sanitizer sees (it does not see the
        // concurrency runtime's own ordering when the bus resumes before the task has suspended).
        let receipt = FluxReceipt()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            perform { [self] in
                let called = withReceipt(receipt) {
                    mix(item)
                }
                receipt.observersCalled = called
                continuation.resume()
            }
        }
        return receipt
    }

    /// Runs `body` with `receipt` as the active receipt (on the bus), for awaited work. A receipt
    /// active around it (a mix seen by middleware) also gets what was recorded.
    package func withReceipt<T>(_ receipt: FluxReceipt, _ body: () -> T) -> T {
        let previous = confined.state.value.activeReceipt
        confined.state.value.activeReceipt = receipt
        defer {
            confined.state.value.activeReceipt = previous
            if let previous, previous !== receipt {
                for record in receipt.records { previous.record(record) }
            }
        }
        return body()
    }

    /// A number of the work item running now, different for each item of this bus (on the bus
    /// only): commits made under one number were made by one mix, a chain's included.
    package var workItemSerial: UInt64 { confined.state.value.itemSerial }

    /// The receipt of the awaited dispatch running now, if any (on the bus only).
    package var activeReceipt: FluxReceipt? { confined.state.value.activeReceipt }
}
