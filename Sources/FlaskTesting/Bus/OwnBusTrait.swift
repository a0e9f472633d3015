#if canImport(Testing)
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
    /// `Flask.withBus`), with the test's name (its display name, if it has one) as the bus's label.
    public struct OwnBusTrait: SuiteTrait, TestTrait, TestScoping {
        /// Applies to every test of a suite it is given to, and of the suites nested in it.
        public var isRecursive: Bool { true }

        /// A scope for each test case (a test function that takes no arguments has one); none for a
        /// suite as a whole, so that no two tests share a bus.
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnBusTrait? {
            testCase == nil ? nil : self
        }

        /// Runs `function` with a new bus as the current one.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            try await Flux.withCurrent(Flux(label: test.displayName ?? test.name)) {
                try await function()
            }
        }
    }

    extension Trait where Self == OwnBusTrait {
        /// Runs each test on a bus of its own (see ``OwnBusTrait``).
        public static var ownBus: OwnBusTrait { OwnBusTrait() }
    }
#endif
