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
    /// Whether what is recorded crosses to another thread (an awaited dispatch's caller), rather
    /// than being read on the bus (the reports of middleware).
    public let crossesThreads: Bool

    /// A receipt to fill on the bus; `dispatchAndWait` and awaited chains make their own.
    package init(crossesThreads: Bool = true) {
        self.crossesThreads = crossesThreads
    }

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

    /// Empties the receipt, for reuse, keeping its storage.
    func reset() {
        contents.withLock {
            $0.observersCalled = 0
            $0.records.removeAll(keepingCapacity: true)
        }
    }

    /// Adds a record; called by receivers on the bus.
    package func record(_ record: any Sendable) {
        contents.withLock { $0.records.append(record) }
    }
}
