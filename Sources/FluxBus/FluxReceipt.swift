/// What the receivers of one awaited dispatch did: see ``Flux/dispatchAndWait(_:payload:)``.
///
/// Receivers add records while the dispatch runs on the bus; the dispatcher reads them once it
/// resumes, after the dispatch has finished.
///
/// `@unchecked Sendable`: written only on the bus while the dispatch runs, read only after the
/// continuation that hands it over has resumed, which orders the accesses.
public final class FluxReceipt: @unchecked Sendable {
    /// The observers of the mixer that were called.
    public internal(set) var observersCalled = 0
    /// What the receivers recorded, in the order they ran (substances record their outcome).
    public private(set) var records: [any Sendable] = []

    init() {}

    /// A receipt for awaited work other than a dispatch (a chain, a task).
    package static func awaited() -> FluxReceipt { FluxReceipt() }

    /// Adds a record; called by receivers on the bus.
    package func record(_ record: any Sendable) {
        records.append(record)
    }
}

/// State of a bus that only its work items touch.
///
/// `@unchecked Sendable`: read and written only by work items, which run one at a time.
final class FluxConfinedState: @unchecked Sendable {
    @exclusivity(unchecked) var activeReceipt: FluxReceipt?
}

extension Flux {
    /// Dispatches a mixer on the main lane and suspends until it has run: its observers were
    /// called (so substances committed and their bus reactors reacted). Returns what they recorded.
    ///
    /// The dispatch keeps its place in the FIFO: it runs after everything enqueued before it.
    public func dispatchAndWait(_ mixer: FluxMixerName, payload: FluxPayload? = nil) async -> FluxReceipt {
        await withCheckedContinuation { (continuation: CheckedContinuation<FluxReceipt, Never>) in
            perform { [self] in
                let receipt = FluxReceipt()
                receipt.observersCalled = withReceipt(receipt) {
                    deliverNow(FluxEvent(mixer: mixer, payload: payload, lock: nil))
                }
                continuation.resume(returning: receipt)
            }
        }
    }

    /// Runs `body` with `receipt` as the active receipt (on the bus), for awaited work.
    package func withReceipt<T>(_ receipt: FluxReceipt, _ body: () -> T) -> T {
        let previous = confined.activeReceipt
        confined.activeReceipt = receipt
        defer { confined.activeReceipt = previous }
        return body()
    }

    /// The receipt of the awaited dispatch running now, if any (on the bus only).
    package var activeReceipt: FluxReceipt? { confined.activeReceipt }
}
