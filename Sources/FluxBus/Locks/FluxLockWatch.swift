import FlaskLocking

/// Watches a bus for locks held longer than a threshold: see
/// ``Flux/watchLocks(heldLongerThan:checkEvery:_:)``.
///
/// Each lock is reported once, through the bus's diagnostics (code
/// ``FluxDiagnostic/Code/lockHeldLong``) and to the handler, with a ``FluxLockReport`` of what the
/// locks hold back. The watch stops when cancelled or when it is no longer referenced.
public final class FluxLockWatch: Sendable {
    /// How long a lock may be held before it is reported.
    public let threshold: Duration

    private let bus: Flux
    private let handler: (@Sendable (FluxLockReport) -> Void)?
    private let reported = LockedValue<Set<UInt64>>([])
    /// The task that looks at the locks every interval, until cancelled.
    private let timer = LockedValue<Task<Void, Never>?>(nil)

    init(bus: Flux, threshold: Duration, handler: (@Sendable (FluxLockReport) -> Void)?) {
        self.bus = bus
        self.threshold = threshold
        self.handler = handler
    }

    func start(every interval: Duration) {
        let interval = max(interval, .milliseconds(1))
        let task = Task.detached(priority: .utility) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                self.check()
            }
        }
        timer.withLock { $0 = task }
    }

    /// Checks the open locks now (the timer calls it; call it yourself with a chosen `now` to
    /// test). Returns the report when a lock newly passed the threshold, nil otherwise.
    @discardableResult
    public func check(now: ContinuousClock.Instant = .now) -> FluxLockReport? {
        // The open locks alone decide; the full report (with the queue) is made only to report.
        let locks = bus.openLocks
        let late = locks.filter { now - $0.takenAt > threshold }.map(\.serial)
        let fresh: [UInt64] = reported.withLock { reported in
            reported.formIntersection(locks.map(\.serial))
            let fresh = late.filter { !reported.contains($0) }
            reported.formUnion(fresh)
            return fresh
        }
        guard !fresh.isEmpty else { return nil }
        let report = bus.lockReport(now: now)
        let serials = fresh.map { "#\($0)" }.joined(separator: ", ")
        bus.report(.lockHeldLong, "lock \(serials) held longer than \(threshold):\n\(report)")
        handler?(report)
        return report
    }

    /// Stops the watch.
    public func cancel() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    deinit {
        cancel()
    }
}

extension Flux {
    /// Reports locks held longer than `threshold`, each once, through ``diagnostics`` and
    /// `handler`, with what they hold back.
    ///
    /// ```swift
    /// let watch = bus.watchLocks(heldLongerThan: .seconds(2)) { report in
    ///     print(report)
    /// }
    /// // keep `watch` for as long as you want to watch; watch.cancel() stops it
    /// ```
    ///
    /// - Parameters:
    ///   - threshold: how long a lock may be held before it is reported.
    ///   - interval: how often to look; a quarter of the threshold by default.
    ///   - handler: called from a background task with the report.
    /// - Returns: the watch; it stops when cancelled or released.
    public func watchLocks(
        heldLongerThan threshold: Duration, checkEvery interval: Duration? = nil,
        _ handler: (@Sendable (FluxLockReport) -> Void)? = nil
    ) -> FluxLockWatch {
        let watch = FluxLockWatch(bus: self, threshold: threshold, handler: handler)
        watch.start(every: interval ?? threshold / 4)
        return watch
    }
}
