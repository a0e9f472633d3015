#if canImport(Testing)
    import Dispatch
    import FluxBus
    import Testing

    /// A Swift Testing trait that runs each test, and each case of a parameterized test, on a bus of
    /// its own: inside it, `Flux.current` (`Flask.bus`) is a new bus, so the substances the
    /// test makes and the facade calls it makes without `on:` use that bus, and tests run in parallel
    /// without sharing state.
    ///
    /// ```swift
    /// @Suite(.ownBus)
    /// struct CounterTests {
    ///     @Test func counts() async {
    ///         let counter = makeCounter()  // on this test's bus
    ///         await Flux.current.apply(CounterMixers.increment)  // `Flask.apply` with FlaskAPI
    ///         #expect(counter.state.counter == 1)
    ///     }
    /// }
    /// ```
    ///
    /// The same as wrapping each test's body in `Flux.withCurrent(Flux()) { ... }` (or
    /// `Flask.withBus`), with the test's name (its display name, if it has one) as the bus's label,
    /// and one thing more: the bus runs its work in a task of the test (on a thread of its own, not
    /// the concurrency pool's), so that what a mixer body, a handler or a middleware records with
    /// `#expect` or `Issue.record` is the test's, and fails it. (Main-actor reactions run on the
    /// main actor, outside the test's tasks: assert on what they did from the test's body.)
    public struct OwnBusTrait: SuiteTrait, TestTrait, TestScoping {
        /// Applies to every test of a suite it is given to, and of the suites nested in it.
        public var isRecursive: Bool { true }

        /// A scope for each test case (a test function that takes no arguments has one); none for a
        /// suite as a whole, so that no two tests share a bus.
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnBusTrait? {
            testCase == nil ? nil : self
        }

        /// Runs `function` with a new bus as the current one, whose work runs in a task of the test.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            let label = test.displayName ?? test.name
            let host = BusHost(label: label)
            let bus = Flux(label: label, drainingOn: host.schedule)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // A child task of the test: it sees the test's task-local values, which is where
                // Swift Testing finds the test an issue belongs to.
                group.addTask(executorPreference: host.executor) { await host.run() }
                defer { host.finish() }
                try await Flux.withCurrent(bus) { try await function() }
            }
        }
    }

    extension Trait where Self == OwnBusTrait {
        /// Runs each test on a bus of its own (see ``OwnBusTrait``).
        public static var ownBus: OwnBusTrait { OwnBusTrait() }
    }

    /// Where a test's bus runs its drains: a task of the test, on a serial queue of its own, that
    /// takes them one after the other. Drains scheduled once the test is over (a substance freed
    /// after it, say) run on the queue directly.
    final class BusHost: Sendable {
        let executor: QueueTaskExecutor
        private let drains: AsyncStream<@Sendable () -> Void>
        private let continuation: AsyncStream<@Sendable () -> Void>.Continuation

        init(label: String) {
            executor = QueueTaskExecutor(DispatchQueue(label: "\(label) (bus)", qos: .userInitiated))
            (drains, continuation) = AsyncStream<@Sendable () -> Void>.makeStream()
        }

        /// Hands a drain to the task; once the test is over, to the queue.
        func schedule(_ drain: @escaping @Sendable () -> Void) {
            if case .terminated = continuation.yield(drain) { executor.queue.async(execute: drain) }
        }

        /// Runs the drains, in the test's task, until ``finish()``.
        func run() async {
            for await drain in drains { drain() }
        }

        /// Ends ``run()`` once it has run the drains handed to it.
        func finish() {
            continuation.finish()
        }
    }

    /// A task executor that runs its jobs on a serial queue: the test's bus runs there, blocking
    /// nobody else's thread while a handler waits.
    final class QueueTaskExecutor: TaskExecutor {
        let queue: DispatchQueue

        init(_ queue: DispatchQueue) {
            self.queue = queue
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
#endif
