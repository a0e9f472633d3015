import Dispatch

/// The time an ``Archiver`` goes by: it reads ``now`` when a write is scheduled, and asks to be
/// woken at the write's deadline.
///
/// The default, ``SystemArchiveClock``, is the system's monotonic clock. Tests pass a
/// `ManualArchiveClock` (of the FlaskTesting product) and move time forward themselves, so that a
/// debounce or a maximum wait is tested without waiting for it:
///
/// ```swift
/// let clock = ManualArchiveClock()
/// let archiver = Archiver(store: store, clock: clock)
/// archiver.scheduleWrite(key: "k", after: 2) { Data("v".utf8) }
/// clock.advance(by: .seconds(2))
/// archiver.waitForWritesInProgress()
/// ```
public protocol ArchiveClock: Sendable {
    /// The current instant, as a duration since an origin of the clock's choosing. Never goes back.
    var now: Duration { get }

    /// Calls `action` once, on any thread, when ``now`` has reached `deadline`: soon if it has
    /// already. Never calls it before returning.
    func wake(at deadline: Duration, _ action: @escaping @Sendable () -> Void)
}

/// The system's monotonic clock (the one `DispatchTime` reads); wakes on a Dispatch queue.
public struct SystemArchiveClock: ArchiveClock {
    /// The system's monotonic clock.
    public init() {}

    /// The time since boot (`DispatchTime`), which only moves forward.
    public var now: Duration { .nanoseconds(DispatchTime.now().uptimeNanoseconds) }

    /// Runs `action` on a Dispatch queue once `deadline` has come.
    public func wake(at deadline: Duration, _ action: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = deadline.components
        let (whole, overflow) = max(0, seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let time =
            overflow
            ? DispatchTime.distantFuture
            : DispatchTime(uptimeNanoseconds: UInt64(whole) + UInt64(max(0, attoseconds) / 1_000_000_000))
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: time, execute: action)
    }
}
