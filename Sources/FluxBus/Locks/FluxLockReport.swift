/// What a bus's locks hold back at one moment: see ``Flux/lockReport(queuedLimit:now:)``.
///
/// Its description is a readable summary naming mixers, source locations and durations, never
/// payload values, so it is safe to log:
///
/// ```text
/// 1 lock open, 3 items queued behind
///   lock #4 (mixer SessionMixers.login) taken at App/Login.swift:42, held 2.5 seconds
///   queued: SessionMixers.refresh (App/Feed.swift:18 in reload()), task, CartMixers.add (App/Cart.swift:7 in add(_:))
/// ```
public struct FluxLockReport: Sendable, CustomStringConvertible {
    /// One open lock.
    public struct Lock: Sendable {
        /// The lock's serial (see ``FluxLock/serial``).
        public let serial: UInt64
        /// The mixer of an exclusive mix, nil for a plain ``Flux/lock(fileID:line:)``.
        public let mixer: FluxMixerName?
        /// Where it was taken.
        public let origin: FluxLock.Origin
        /// How long it had been held when the report was made.
        public let heldFor: Duration

        init(_ lock: FluxLock, now: ContinuousClock.Instant) {
            self.serial = lock.serial
            self.mixer = lock.mixer
            self.origin = lock.origin
            self.heldFor = now - lock.takenAt
        }
    }

    /// The open locks, oldest first.
    public let locks: [Lock]
    /// The first main-lane items waiting (mixer names; `task` for bus tasks).
    public let queued: [FluxMixerName]
    /// Where each of ``queued`` was dispatched from, when its dispatch said.
    public let queuedOrigins: [FluxOrigin?]
    /// How many main-lane items are waiting.
    public let queuedCount: Int
    /// How many exclusive-lane items are waiting (they run even while locks are held).
    public let exclusiveQueuedCount: Int

    public var description: String {
        let plural = locks.count == 1 ? "lock" : "locks"
        let items = queuedCount == 1 ? "item" : "items"
        var lines = ["\(locks.count) \(plural) open, \(queuedCount) \(items) queued behind"]
        for lock in locks {
            let mixer = lock.mixer.map { " (mixer \($0))" } ?? ""
            lines.append("  lock #\(lock.serial)\(mixer) taken at \(lock.origin), held \(Self.seconds(lock.heldFor))")
        }
        if !queued.isEmpty {
            let more = queuedCount > queued.count ? ", and \(queuedCount - queued.count) more" : ""
            let named = queued.indices.map { index in
                let origin = index < queuedOrigins.count ? queuedOrigins[index] : nil
                return queued[index].description + (origin.map { " (\($0))" } ?? "")
            }
            lines.append("  queued: " + named.joined(separator: ", ") + more)
        }
        return lines.joined(separator: "\n")
    }

    /// A duration as a reader wants it in a report: seconds to a tenth (`2.5 seconds`), where the
    /// duration's own description wrote nine decimals (`0.100466434 seconds`).
    static func seconds(_ duration: Duration) -> String {
        let tenths = (duration.microseconds / 100_000).rounded()
        return "\(tenths / 10) seconds"
    }
}
