import FlaskLocking

/// Waiting until what was scheduled is stored, with group commit: callers that ask while a write
/// of their key is under way share the next one.
extension Archiver {
    /// Suspends until every value scheduled under `key` before this call is stored, or throws the
    /// problem of the attempt that should have stored it.
    ///
    /// A write of `key` that waits for its delay is started now. Callers that ask while a write of
    /// the key is under way wait for the next one, which then stores what all of them scheduled
    /// (group commit): under load, a key is written once per batch of callers, not once per
    /// caller, and the store's `fsync` is paid once per batch. A write that fails is retried as
    /// usual (see ``retryDelays``); the callers waiting for it are told at once.
    ///
    /// ```swift
    /// archiver.scheduleWrite(key: "orders", after: 2) { try ArchiveEncoder().encode(orders) }
    /// try await archiver.stored(key: "orders")   // on disk now: acknowledge the order
    /// ```
    public func stored(key: String) async throws(ArchiveProblem) {
        let problem = await withCheckedContinuation { (continuation: CheckedContinuation<ArchiveProblem?, Never>) in
            let job = durability.withLock { durability in
                durability.join(key, continuation)
            }
            if let job { startDurableWrite(job) }
        }
        if let problem { throw problem }
    }

    /// How many callers of ``stored(key:)`` wait for `key` now: for tests and diagnostics.
    package func durableCallers(of key: String) -> Int {
        durability.withLock { $0.callers(of: key) }
    }

    /// Starts the durable write `job` asks for: the key's pending write, taken now, or, with none
    /// pending, a barrier after the writes already on the archive thread (one of them may be the
    /// key's); then settles the job's callers and starts the next batch, if callers came meanwhile.
    func startDurableWrite(_ key: String) {
        state.withLock { state in
            let write = state.pending.take(key)
            // Handed to the worker before the lock is let go, as a wake-up's write (see `wake`): a
            // `flush()` that no longer finds the write pending finds it on the worker.
            worker.async { [self] in finishDurableWrite(write, key: key) }
        }
    }

    /// Performs the durable write of `key` (on the worker), settles its callers, and starts the
    /// next batch if callers came meanwhile.
    private func finishDurableWrite(_ write: PendingWrites.Write?, key: String) {
        let problem: ArchiveProblem?
        if let write {
            problem = perform(write, key: key)
        } else {
            // Nothing pending: what was scheduled is stored, or its last attempt failed (or was
            // refused), for the reason it gave then.
            problem = state.withLock { $0.failing[key]?.problem }
        }
        let (waiting, next) = durability.withLock { durability in
            let (waiting, next) = durability.finish(key)
            // Only what was written counts: a refused or failed write acknowledged nobody.
            if problem == nil {
                if write != nil {
                    durability.statistics.writes += 1
                } else {
                    durability.statistics.acknowledgedWithoutWrite += waiting.count
                }
                durability.statistics.acknowledged += waiting.count
            }
            return (waiting, next)
        }
        for continuation in waiting { continuation.resume(returning: problem) }
        if next { startDurableWrite(key) }
    }

    /// How the durable writes went so far: how many, and how many callers of ``stored(key:)`` each
    /// answered, on average. Under load, the acknowledgements per write tell how much a write's
    /// `fsync` is shared (see docs/archiving.md, "Acknowledging only what is on disk").
    public var durabilityStatistics: ArchiveDurabilityStatistics {
        durability.withLock { $0.statistics }
    }
}

/// The durable writes of an ``Archiver`` so far (see ``Archiver/durabilityStatistics``).
public struct ArchiveDurabilityStatistics: Sendable, Equatable, CustomStringConvertible {
    /// The writes made for callers of ``Archiver/stored(key:)``: one `fsync` each, with the file store.
    public var writes: Int
    /// The callers told their values were stored.
    public var acknowledged: Int
    /// Those of ``acknowledged`` whose values were stored already when their turn came, with
    /// nothing left to write for them (a caller that asks after ``Archiver/flush()``, say): told
    /// at once, they shared no write.
    public var acknowledgedWithoutWrite: Int

    /// Statistics of `writes` durable writes and `acknowledged` callers told, of whom
    /// `acknowledgedWithoutWrite` needed no write.
    public init(writes: Int = 0, acknowledged: Int = 0, acknowledgedWithoutWrite: Int = 0) {
        self.writes = writes
        self.acknowledged = acknowledged
        self.acknowledgedWithoutWrite = acknowledgedWithoutWrite
    }

    /// The callers each write answered, on average (0 before the first write): how much of a
    /// write's `fsync` is shared. Callers that needed no write are not counted.
    public var acknowledgedPerWrite: Double {
        writes == 0 ? 0 : Double(acknowledged - acknowledgedWithoutWrite) / Double(writes)
    }

    public var description: String {
        let perWrite = (acknowledgedPerWrite * 10).rounded() / 10
        var text = "\(acknowledged) acknowledgements in \(writes) durable writes (\(perWrite) per write)"
        if acknowledgedWithoutWrite > 0 { text += ", \(acknowledgedWithoutWrite) with nothing left to write" }
        return text
    }
}

/// The callers of ``Archiver/stored(key:)`` by key: those whose write is under way, and those who
/// came since and wait for the next one.
struct ArchiveDurability {
    private struct Batches {
        var current: [CheckedContinuation<ArchiveProblem?, Never>] = []
        var next: [CheckedContinuation<ArchiveProblem?, Never>] = []
    }

    private var byKey: [String: Batches] = [:]
    /// What the durable writes did so far.
    var statistics = ArchiveDurabilityStatistics()

    /// How many callers wait for `key`.
    func callers(of key: String) -> Int {
        byKey[key].map { $0.current.count + $0.next.count } ?? 0
    }

    /// Adds a caller for `key`; returns the key when a write must start now (none under way).
    mutating func join(_ key: String, _ continuation: CheckedContinuation<ArchiveProblem?, Never>) -> String? {
        if byKey[key] != nil {
            byKey[key]?.next.append(continuation)
            return nil
        }
        byKey[key] = Batches(current: [continuation])
        return key
    }

    /// The write of `key`'s current batch is done: returns its callers, and whether a next batch
    /// starts (it becomes the current one).
    mutating func finish(_ key: String) -> (waiting: [CheckedContinuation<ArchiveProblem?, Never>], next: Bool) {
        guard let batches = byKey[key] else { return ([], false) }
        guard !batches.next.isEmpty else {
            byKey[key] = nil
            return (batches.current, false)
        }
        byKey[key] = Batches(current: batches.next)
        return (batches.current, true)
    }
}
