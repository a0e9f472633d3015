import Testing

extension Trait where Self == TimeLimitTrait {
    /// A time limit that turns a hang (a continuation never resumed, a file that blocks on open)
    /// into a failure, and nothing slower into one.
    ///
    /// Swift Testing starts every test of a run at once and measures a limit from that start, the
    /// time a test waits for a thread of the shared pool included: on two cores under the thread
    /// sanitizer the whole run takes many minutes and a test may wait most of them before its first
    /// line. A limit of a minute failed tests that had not yet run; this one is above the longest
    /// sanitizer run seen and below CI's own limit. How long something may take is the
    /// benchmark's to say, and a test that checks "at once" waits with its own deadline.
    public static var hangGuard: Self { .timeLimit(.minutes(30)) }
}
