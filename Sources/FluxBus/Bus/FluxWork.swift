/// A unit of work the bus runs, as an object: subclass it and override ``run()``.
///
/// `Flux.perform(_:)` and `Flux.perform(mix:_:)` queue it as it is. A closure given to
/// `perform(_:)` is boxed in one of these, so work that already lives in an object (a chain
/// reaction's steps, a command) is queued without that allocation. The bus holds the object until
/// it has run, or until it was purged.
///
/// ```swift
/// final class Refresh: FluxWork, @unchecked Sendable {
///     override func run() { print("refreshing on the bus") }
/// }
/// bus.perform(Refresh())
/// ```
///
/// `@unchecked Sendable`: it has no state; a subclass states why its own is safe to share.
open class FluxWork: @unchecked Sendable {
    /// Work to queue; subclasses override ``run()``.
    public init() {}

    /// Runs the work, on the bus.
    open func run() {}

    /// Called instead of ``run()`` when `Flux.purge()` drops the work before it started, on the
    /// thread that purges: resume whoever waits for it here (a continuation, a completion), or
    /// nothing (the default).
    open func dropped() {}
}

/// A task's closure, as work.
final class FluxTask: FluxWork, @unchecked Sendable {
    // `@unchecked Sendable`: immutable, and the closure is `@Sendable`.
    private let body: @Sendable () -> Void
    private let whenDropped: (@Sendable () -> Void)?

    init(_ body: @escaping @Sendable () -> Void, whenDropped: (@Sendable () -> Void)? = nil) {
        self.body = body
        self.whenDropped = whenDropped
    }

    override func run() { body() }

    override func dropped() { whenDropped?() }
}
