import Testing

extension Trait where Self == TimeLimitTrait {
    /// A time limit that reports a hang (a continuation never resumed, a file that blocks on
    /// open) as a failure, and nothing slower as one.
    ///
    /// Swift Testing starts every test of a run at once and measures a limit from that start, the
    /// time a test waits for a thread of the shared pool included: on two cores under the thread
    /// sanitizer the whole run takes many minutes and a test may wait most of them before its first
    /// line. A limit of a minute failed tests that had not yet run; this one is above the longest
    /// sanitizer run seen. When it passes, the test is cancelled and its issue recorded, but a
    /// wait that ignores cancellation still holds the run: CI's `timeout` on each test step ends
    /// it. How long something may take is the benchmark's to say, and a test that checks "at
    /// once" waits with its own deadline.
    public static var hangGuard: Self { .timeLimit(.minutes(30)) }
}
