/// A unit of work the bus runs, as an object: the form a closure given to `Flux.perform(_:)` takes
/// on the queue, and a form the layers above queue their multi-step work in, without that
/// closure's allocation.
///
/// For work of your own, `bus.perform { ... }` is the spelling: its closure is checked
/// `@Sendable`. A subclass that overrides ``run()`` saves one allocation per item where the work
/// already lives in an object; Swift 6 makes it restate the class's unchecked `Sendable`
/// conformance, which turns the compiler's checks off for the stored properties it adds (keep them
/// `let`s of `Sendable` values). `Flux.perform(_:)` and `Flux.perform(mix:_:)` queue it as it is;
/// the bus holds it until it has run, or until it was purged.
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

    /// Called on the bus once the work item is over, after ``run()`` (however it was queued; work
    /// a purge dropped is told ``dropped()`` instead): for work queued with
    /// `Flux.perform(mix:_:origin:)`, after the middleware were told what it did (a middleware
    /// that records mixes has recorded it). Resume whoever waits for the work here, so that what
    /// they look at next includes it. Nothing by default.
    open func finished() {}
}

/// A task's closure, as work.
final class FluxTask: FluxWork, @unchecked Sendable {
    // `@unchecked Sendable`: immutable, and the closure is `@Sendable`.
    private let body: @Sendable () -> Void
    private let whenDropped: (@Sendable () -> Void)?
    private let whenFinished: (@Sendable () -> Void)?

    init(
        _ body: @escaping @Sendable () -> Void, whenDropped: (@Sendable () -> Void)? = nil,
        whenFinished: (@Sendable () -> Void)? = nil
    ) {
        self.body = body
        self.whenDropped = whenDropped
        self.whenFinished = whenFinished
    }

    override func run() { body() }

    override func dropped() { whenDropped?() }

    override func finished() { whenFinished?() }
}
