import FlaskLocking

/// What the receivers of one awaited dispatch did: see ``Flux/dispatchAndWait(_:payload:fileID:line:function:isolation:)``.
///
/// Receivers add records while the dispatch runs on the bus; the dispatcher reads them once it
/// resumes, after the dispatch has finished.
///
/// Its contents are behind a lock: the bus writes them and the resumed dispatcher reads them, and
/// the thread sanitizer does not see a continuation's resume as ordering the two.
public final class FluxReceipt: Sendable {
    private let contents = LockedValue(Contents())
    private struct Contents {
        var observersCalled = 0
        var records: [any Sendable] = []
        /// What receivers lent with their records (see ``record(_:lending:)``).
        var lent: [any FluxLending] = []
        var stop: FluxMixReport.Stop?
    }
    /// Whether what is recorded crosses to another thread (an awaited dispatch's caller), rather
    /// than being read on the bus (the reports of middleware).
    public let crossesThreads: Bool

    /// A receipt to fill on the bus; `dispatchAndWait` makes its own. A hook for the layers above
    /// that await their own tasks.
    @_spi(FlaskInternals) public init(crossesThreads: Bool = true) {
        self.crossesThreads = crossesThreads
    }

    /// The observers of the mixer that were called.
    public internal(set) var observersCalled: Int {
        get { contents.withLock { $0.observersCalled } }
        set { contents.withLock { $0.observersCalled = newValue } }
    }

    /// Set when a middleware stopped the mix: then no receiver ran, and nothing was recorded.
    public internal(set) var stop: FluxMixReport.Stop? {
        get { contents.withLock { $0.stop } }
        set { contents.withLock { $0.stop = newValue } }
    }

    /// What the receivers recorded, in the order they ran.
    public var records: [any Sendable] { contents.withLock { $0.records } }

    /// Runs `work` on `bus`'s main lane as a mix named `label`, with this receipt active, and
    /// returns once it has run. A hook for the layers above that await their own tasks.
    @_spi(FlaskInternals) public func await(
        on bus: Flux, mix label: FluxMixerName, origin: FluxOrigin? = nil, _ work: @escaping @Sendable () -> Void
    ) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            bus.perform(
                mix: label, origin: origin,
                { [self] in bus.withReceipt(self, work) },
                // Purged before it ran: resumed with nothing recorded.
                whenDropped: { continuation.resume() },
                // Once the middleware saw the mix: what the caller looks at next (what a
                // middleware recorded) includes it.
                whenFinished: { continuation.resume() })
        }
    }

    /// What receivers lent with their records, to be told when the records are read.
    var lent: [any FluxLending] { contents.withLock { $0.lent } }

    /// ``records`` and ``lent`` read together: a report takes both, under one lock.
    var recordsAndLent: (records: [any Sendable], lent: [any FluxLending]) {
        contents.withLock { ($0.records, $0.lent) }
    }

    /// Empties the receipt, for reuse, keeping its storage.
    func reset() {
        contents.withLock {
            $0.observersCalled = 0
            $0.stop = nil
            // One by one from the end: a mix records one or two, and `removeAll(keepingCapacity:)`
            // went through the general range replacement.
            while !$0.records.isEmpty { $0.records.removeLast() }
            while !$0.lent.isEmpty { $0.lent.removeLast() }
        }
    }

    /// Adds a record; called by receivers on the bus. `lent` is something the record lends and
    /// the receiver reuses later unless it is told (``FluxLending/recordWasRead()``) that a
    /// middleware read the record. A hook for the receivers of the layers above.
    package func record(_ record: any Sendable, lending lent: (any FluxLending)? = nil) {
        contents.withLock {
            $0.records.append(record)
            if let lent { $0.lent.append(lent) }
        }
    }
}

extension FluxReceipt {
    /// Takes the records (and what they lend) of a receipt that was active inside this one's mix.
    func absorb(_ inner: FluxReceipt) {
        let (records, lent) = inner.contents.withLock { ($0.records, $0.lent) }
        if crossesThreads {
            // They cross with this receipt's records: what they lent is no longer the receiver's.
            for lender in lent { lender.recordWasRead() }
            contents.withLock { $0.records.append(contentsOf: records) }
        } else {
            contents.withLock {
                $0.records.append(contentsOf: records)
                $0.lent.append(contentsOf: lent)
            }
        }
    }
}

/// Something a receiver lends with a record in a ``FluxReceipt`` and reuses for later mixes unless
/// the record is read: ``FluxMixReport/records`` calls ``recordWasRead()`` on each, with no cast of
/// the records themselves.
package protocol FluxLending: AnyObject, Sendable {
    /// The record was read (on the bus): what was lent is the reader's from now on.
    func recordWasRead()
}
