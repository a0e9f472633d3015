/// What one mix on a ``Flux`` bus did, as ``FluxMiddleware`` sees it once the mix has run.
///
/// A report is read where it is handed over, on the bus, and is not `Sendable`: keep its
/// ``summary`` (or copy out the fields you need) to send it elsewhere, to a debugging view on
/// another thread, say. That lets a receiver lend a record something it reuses for later mixes
/// and be told when it is read, so a bus whose middleware never reads records copies nothing.
public struct FluxMixReport {
    /// What kind of work item the mix was.
    public enum Kind: String, Sendable, Codable {
        /// A mixer dispatched on the main lane.
        case mixer
        /// A mixer dispatched with a lock on the exclusive lane (an exclusive mix).
        case exclusiveMixer
        /// A task queued as a mix with ``Flux/perform(mix:_:origin:)``: work of the layers above
        /// that middleware sees under a label.
        case task
    }

    /// Why a mix was stopped, and by which middleware.
    public struct Stop: Sendable, Equatable, Codable {
        /// The ``FluxMiddleware/middlewareName`` of the middleware that stopped it.
        public let middleware: String
        /// Why it stopped the mix, in its words.
        public let reason: String

        /// A stop by the middleware named `middleware`, for `reason`.
        public init(middleware: String, reason: String) {
            self.middleware = middleware
            self.reason = reason
        }
    }

    /// The mix's number on its bus, counting the mixes middleware saw, from 1.
    public let serial: UInt64
    /// Whether it was a mixer, an exclusive mix or a task that mixes.
    public let kind: Kind
    /// The mixer that ran (after any replacement), or the task's label.
    public let mixer: FluxMixerName
    /// The payload that ran (after any replacement).
    public let payload: FluxPayload?
    /// The value dispatched with the mixer (a value of the caller's own type), if any.
    public let value: (any Sendable)?
    /// Where the mix was dispatched from (a task: where it was queued), when the dispatch said.
    public let origin: FluxOrigin?
    /// The mixer as dispatched, when a middleware replaced it.
    public let dispatchedMixer: FluxMixerName?
    /// Set when a middleware stopped the mix: then no observer saw it.
    public let stop: Stop?
    /// How many observers of the mixer were called: those added with ``Flux/observe(_:owner:_:)``
    /// and those of the layers above.
    public let observersCalled: Int
    /// What the receivers recorded, kept as given.
    private let receiverRecords: [any Sendable]
    /// What the receivers lent with their records (see `FluxReceipt.record(_:lending:)`).
    private let lent: [any FluxLending]
    /// The bus's middleware state, told which middleware ignore reports.
    private let confined: FluxConfinedState?
    /// The serials of the locks open while the mix ran, oldest first.
    public let locksHeld: [UInt64]
    /// When the mix started (`ContinuousClock`).
    public let startedAt: ContinuousClock.Instant
    /// How long the mix took on the bus, its receivers' work included.
    public let duration: Duration

    init(
        serial: UInt64, kind: Kind, mixer: FluxMixerName, payload: FluxPayload?, value: (any Sendable)?,
        origin: FluxOrigin?, dispatchedMixer: FluxMixerName?, stop: Stop?, observersCalled: Int,
        records: [any Sendable],
        lent: [any FluxLending] = [], locksHeld: [UInt64], startedAt: ContinuousClock.Instant, duration: Duration,
        confined: FluxConfinedState?
    ) {
        self.lent = lent
        self.confined = confined
        self.serial = serial
        self.kind = kind
        self.mixer = mixer
        self.payload = payload
        self.value = value
        self.origin = origin
        self.dispatchedMixer = dispatchedMixer
        self.stop = stop
        self.observersCalled = observersCalled
        self.receiverRecords = records
        self.locksHeld = locksHeld
        self.startedAt = startedAt
        self.duration = duration
    }

    /// What the receivers recorded, in the order they ran (through the bus's ``FluxReceipt``): an
    /// extension point for the layers above, whose receivers say what they did (whether they
    /// changed anything, and what). ``FluxLogger`` writes each record's
    /// description. What a record holds is the reader's to keep.
    public var records: [any Sendable] {
        for lender in lent { lender.recordWasRead() }
        return receiverRecords
    }

    /// Tells the bus that `middleware` ignores reports (its `didMix` is the default one): the bus
    /// stops building reports for it.
    func ignored(by middleware: any FluxMiddleware) {
        confined?.state.value.newlyIgnoring.append(ObjectIdentifier(middleware))
    }

    /// A `Sendable` copy of the report, with each record's description in place of the record.
    public var summary: Summary {
        Summary(
            serial: serial, kind: kind, mixer: mixer, payload: payload, value: value, origin: origin,
            dispatchedMixer: dispatchedMixer, stop: stop, observersCalled: observersCalled,
            recordDescriptions: receiverRecords.map { String(describing: $0) }, locksHeld: locksHeld,
            startedAt: startedAt, duration: duration)
    }

    /// A `Sendable` copy of a ``FluxMixReport``, to keep or send off the bus.
    ///
    /// Its `description` is the line ``FluxLogger`` writes, payload values redacted:
    /// `mix #1 SessionMixers.login [user: String] → 1 observer; 0.04 ms`, then what each record says.
    public struct Summary: Sendable, CustomStringConvertible {
        /// The line ``FluxLogger`` writes for the mix, payload keys and types only.
        public var description: String { FluxLogger.line(for: self) }

        /// See ``FluxMixReport/serial``.
        public let serial: UInt64
        /// See ``FluxMixReport/kind``.
        public let kind: Kind
        /// See ``FluxMixReport/mixer``.
        public let mixer: FluxMixerName
        /// See ``FluxMixReport/payload``.
        public let payload: FluxPayload?
        /// See ``FluxMixReport/value``.
        public let value: (any Sendable)?
        /// See ``FluxMixReport/origin``.
        public let origin: FluxOrigin?
        /// See ``FluxMixReport/dispatchedMixer``.
        public let dispatchedMixer: FluxMixerName?
        /// See ``FluxMixReport/stop``.
        public let stop: Stop?
        /// See ``FluxMixReport/observersCalled``.
        public let observersCalled: Int
        /// The description of each of ``FluxMixReport/records``, in order (what ``FluxLogger``
        /// writes).
        public let recordDescriptions: [String]
        /// See ``FluxMixReport/locksHeld``.
        public let locksHeld: [UInt64]
        /// See ``FluxMixReport/startedAt``.
        public let startedAt: ContinuousClock.Instant
        /// See ``FluxMixReport/duration``.
        public let duration: Duration
    }

    /// The records, for a reader of this package that uses them while the report is handed over
    /// and keeps nothing of them but copied values: the records are not told. A hook for
    /// middleware of this package that copy what they read.
    @_spi(FlaskInternals) public var recordsReadInPlace: [any Sendable] { receiverRecords }
}
