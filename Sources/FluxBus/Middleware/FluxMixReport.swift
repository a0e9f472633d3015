/// What one mix on a ``Flux`` bus did, as ``FluxMiddleware`` sees it once the mix has run.
public struct FluxMixReport: Sendable {
    /// What kind of work item the mix was.
    public enum Kind: String, Sendable, Codable {
        /// A mixer dispatched on the main lane.
        case mixer
        /// A mixer dispatched with a lock on the exclusive lane (an exclusive mix).
        case exclusiveMixer
        /// A task that mixes substances: a chain reaction, a rollback, an undo.
        case task
    }

    /// Why a mix was stopped, and by which middleware.
    public struct Stop: Sendable, Equatable {
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
    /// The value dispatched with the mixer (a typed action, say), if any.
    public let value: (any Sendable)?
    /// The mixer as dispatched, when a middleware replaced it.
    public let dispatchedMixer: FluxMixerName?
    /// Set when a middleware stopped the mix: then no observer saw it.
    public let stop: Stop?
    /// How many observers of the mixer were called (substances that define it).
    public let observersCalled: Int
    /// What the receivers recorded, in the order they ran (through the bus's ``FluxReceipt``): an
    /// extension point for the layers above, whose receivers say what they did (a substance
    /// records whether it committed, and which keys). ``FluxLogger`` writes each record's
    /// description.
    public let records: [any Sendable]
    /// The serials of the locks open while the mix ran, oldest first.
    public let locksHeld: [UInt64]
    /// When the mix started (`ContinuousClock`).
    public let startedAt: ContinuousClock.Instant
    /// How long the mix took on the bus, its reactions included.
    public let duration: Duration
}
