import Synchronization

extension Flux {
    /// The bus that the layers above use when they are given none: the one
    /// ``withCurrent(_:operation:)-(_,()->Result)`` set around the running code (a test, an
    /// independent part of an app); inside the code a bus runs (a mixer body, a handler, a
    /// middleware, a task, a lock's `onRelease`, and the work the layers above run for it on
    /// other threads), that bus, on whatever thread it runs; else ``shared``.
    ///
    /// ```swift
    /// Flux.withCurrent(Flux(label: "a test's bus")) {
    ///     // What is made here and given no bus uses this one.
    ///     assert(Flux.current.label == "a test's bus")
    /// }
    /// ```
    ///
    /// It follows the code: the synchronous code called inside, child tasks (`async let`, task
    /// groups) and unstructured `Task { }`s made inside see it too, as a `@TaskLocal` value; a
    /// detached task and a queue's block do not. Until a bus is first set anywhere, reading it costs
    /// one load (until then every bus is the shared one).
    public static var current: Flux {
        @inline(__always) get {
            guard currentMayDiffer.load(ordering: .relaxed) else { return .shared }
            return taskCurrent ?? .shared
        }
    }

    /// Runs `body` as code of `bus`: with `bus` as ``current`` inside it, unless every bus is the
    /// shared one (then that is what `current` returns anyway, and nothing is set). What the bus
    /// runs goes through here: its drains, a claimed run, a lock's callback; and what the modules
    /// above run for it elsewhere (on another thread or an actor).
    @inline(__always)
    package static func runningAsCurrent<Result>(_ bus: Flux, _ body: () throws -> Result) rethrows -> Result {
        guard currentMayDiffer.load(ordering: .relaxed) else { return try body() }
        return try $taskCurrent.withValue(bus, operation: body)
    }

    /// Notes that a bus other than the shared one exists: from then on ``current`` reads the
    /// task-local value.
    static func noteAnotherBus() {
        if !currentMayDiffer.load(ordering: .relaxed) { currentMayDiffer.store(true, ordering: .relaxed) }
    }

    /// Runs `operation` with `bus` as the ``current`` bus.
    ///
    /// - Parameters:
    ///   - bus: the bus for the calls inside that are given none.
    ///   - operation: the code that uses it.
    /// - Returns: what `operation` returns.
    public static func withCurrent<Result>(_ bus: Flux, operation: () throws -> Result) rethrows -> Result {
        noteAnotherBus()
        return try $taskCurrent.withValue(bus, operation: operation)
    }

    /// Runs `operation`, async, with `bus` as the ``current`` bus.
    ///
    /// - Parameters:
    ///   - bus: the bus for the calls inside that are given none.
    ///   - isolation: where `operation` runs; leave the default.
    ///   - operation: the code that uses it.
    /// - Returns: what `operation` returns.
    public static func withCurrent<Result>(
        _ bus: Flux, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> Result
    ) async rethrows -> Result {
        noteAnotherBus()
        return try await $taskCurrent.withValue(bus, operation: operation, isolation: isolation)
    }

    /// The bus set by ``withCurrent(_:operation:)-(_,()->Result)``, where one is.
    @TaskLocal private static var taskCurrent: Flux?

    /// Whether a bus other than the shared one was ever made (or set current): until then,
    /// ``current`` reads no task-local value.
    private static let currentMayDiffer = Atomic<Bool>(false)
}
