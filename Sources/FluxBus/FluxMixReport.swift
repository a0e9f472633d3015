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
        public let reason: String

        public init(middleware: String, reason: String) {
            self.middleware = middleware
            self.reason = reason
        }
    }

    /// The mix's number on its bus, counting the mixes middleware saw, from 1.
    public let serial: UInt64
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
    /// What the receivers recorded, in the order they ran: substances record a
    /// ``FluxReceiverRecord`` each (the `Substances` module's `MixOutcome.Entry`).
    public let records: [any Sendable]
    /// The serials of the locks open while the mix ran, oldest first.
    public let locksHeld: [UInt64]
    /// When the mix started (`ContinuousClock`).
    public let startedAt: ContinuousClock.Instant
    /// How long the mix took on the bus, its reactions included.
    public let duration: Duration

    /// The receivers' records that describe what they did with the mix.
    public var receivers: [any FluxReceiverRecord] { records.compactMap { $0 as? any FluxReceiverRecord } }
}

/// What one receiver (a substance) did with a mix, in terms tools can show without knowing its
/// state type.
public protocol FluxReceiverRecord: Sendable {
    /// The receiver's name.
    var receiverName: String { get }
    /// The keys its commit changed, parents included; empty when nothing changed or it aborted.
    var changedKeys: [String] { get }
    /// Whether its transaction was aborted.
    var aborted: Bool { get }
    /// How many observers (reactors) its commit was delivered to.
    var observersNotified: Int { get }
}
