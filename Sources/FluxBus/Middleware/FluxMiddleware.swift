/// An interceptor on a ``Flux`` bus: it sees every mixer and its payload before the observers
/// do, may pass it on, replace it or stop it, and sees what every mix did after.
///
/// Install middleware with ``Flux/use(_:)``; they run on the bus, in the order they were added,
/// inside the work item of the mix, so they see mixes in bus order and must return quickly.
///
/// ```swift
/// final class NoGuests: FluxMiddleware {
///     func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
///         event.payload?["user"] as? String == "guest" ? .stop(reason: "guests cannot mix") : .pass
///     }
/// }
/// bus.use(NoGuests())
/// ```
///
/// Both requirements have default implementations (pass everything, ignore reports), so a
/// middleware implements only what it needs. With no middleware installed the bus pays one check
/// per work item; when no middleware implements `didMix`, it builds no report.
public protocol FluxMiddleware: AnyObject, Sendable {
    /// What to do with a mixer about to reach its observers, on the bus.
    ///
    /// Called for named mixers (dispatches and exclusive mixes), not for tasks. A replacement is
    /// what the next middleware and the observers see; the first `stop` ends the mix.
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision

    /// What a mix did, on the bus, once it has run (or been stopped): called for named mixers and
    /// for the tasks queued as mixes (``Flux/perform(mix:_:origin:)``).
    func didMix(_ report: FluxMixReport)
}

extension FluxMiddleware {
    /// Passes every mixer on unchanged.
    public func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision { .pass }
    /// Ignores the report, and tells the bus so: it builds no report for a middleware that has no
    /// `didMix` of its own.
    public func didMix(_ report: FluxMixReport) {
        report.ignored(by: self)
    }

    /// The middleware's name in reports: its type name.
    public var middlewareName: String { "\(Self.self)" }
}

/// What a ``FluxMiddleware`` decides about a mixer.
public enum FluxMiddlewareDecision: Sendable {
    /// Hand the mixer on unchanged.
    case pass
    /// Hand on another mixer and payload instead (the lock of an exclusive mix and the value
    /// dispatched with the mixer stay with it).
    case replace(FluxMixerName, payload: FluxPayload?)
    /// Stop the mix: no observer sees it. The reason is recorded in the ``FluxMixReport``.
    case stop(reason: String)
}
