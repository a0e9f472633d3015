import Synchronization

extension Flux {
    /// The bus that facade calls and new substances use when they are given none: the one
    /// ``withCurrent(_:operation:)-(_,()->Result)`` set around the running code (a test, an
    /// independent part of an app), else ``shared``.
    ///
    /// ```swift
    /// Flux.withCurrent(Flux(label: "a test's bus")) {
    ///     // Substances made here, and facade calls given no bus, use this one.
    ///     assert(Flux.current.label == "a test's bus")
    /// }
    /// ```
    ///
    /// It follows the code: the synchronous code called inside, child tasks (`async let`, task
    /// groups) and unstructured `Task { }`s made inside see it too, as a `@TaskLocal` value; a
    /// detached task and a queue's block do not. Until a bus is first set anywhere, reading it costs
    /// one load.
    public static var current: Flux {
        @inline(__always) get {
            guard currentWasEverSet.load(ordering: .relaxed) else { return .shared }
            return taskCurrent ?? .shared
        }
    }

    /// Runs `operation` with `bus` as the ``current`` bus.
    ///
    /// - Parameters:
    ///   - bus: the bus for the calls inside that are given none.
    ///   - operation: the code that uses it.
    /// - Returns: what `operation` returns.
    public static func withCurrent<Result>(_ bus: Flux, operation: () throws -> Result) rethrows -> Result {
        currentWasEverSet.store(true, ordering: .relaxed)
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
        currentWasEverSet.store(true, ordering: .relaxed)
        return try await $taskCurrent.withValue(bus, operation: operation, isolation: isolation)
    }

    /// The bus set by ``withCurrent(_:operation:)-(_,()->Result)``, where one is.
    @TaskLocal private static var taskCurrent: Flux?

    /// Whether any code ever set a current bus: until then, ``current`` reads no task-local value.
    private static let currentWasEverSet = Atomic<Bool>(false)
}
