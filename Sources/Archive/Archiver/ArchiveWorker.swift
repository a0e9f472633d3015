import Dispatch
import FlaskLocking
import Foundation

/// The one thread that encodes, decodes and stores archives, one job at a time, in the order given.
///
/// A thread of its own, not a Dispatch queue, for its stack: encoding and decoding recurse once per
/// level of the value, and a Dispatch worker's stack (512 KB on Apple platforms) overflows long
/// before the 512 levels a JSON reader accepts. This one has ``stackSize`` bytes, reserved but only
/// touched as deep values need it. Shared by every archiver, started at the first job.
///
/// The job list is behind the package's lock; a semaphore counts the jobs the thread has not
/// taken yet, so that it sleeps while there are none.
final class ArchiveWorker: Sendable {
    static let shared = ArchiveWorker()
    /// The thread that encodes the snapshots of logs being compacted, beside the archive thread,
    /// so that no acknowledgement waits for an encoding of a whole value.
    static let compaction = ArchiveWorker()

    /// 64 MB: about 20,000 levels of `JSONEncoder` recursion in a debug build, four times what the
    /// archive encoder and decoder allow (see `ArchiveEncoder.maximumNesting`).
    static let stackSize = 64 << 20

    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var started = false
    }

    private let queue = LockedValue(Queue())
    private let waiting = DispatchSemaphore(value: 0)

    /// Runs `job` on the worker after the jobs given before it.
    func async(_ job: @escaping @Sendable () -> Void) {
        let start = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.started = true }
            return !queue.started
        }
        if start { self.start() }
        waiting.signal()
    }

    /// Runs `body` on the worker after the jobs given before it, and returns its result. Runs it at
    /// once when called on the thread of a worker, this one or another (from a job, a store or a
    /// failure handler): every worker's thread carries the same marker.
    func sync<Result>(_ body: () -> Result) -> Result {
        if Self.isAnyCurrent { return body() }
        return BlockingCall.call(body) { job in async(job) }
    }

    private static let marker = "flask.archive.worker"

    /// Starts the thread (once: the first job does).
    private func start() {
        let thread = Thread { [self] in
            Thread.current.threadDictionary[ArchiveWorker.marker] = true
            run()
        }
        thread.name = "flask.archive"
        thread.stackSize = ArchiveWorker.stackSize
        thread.start()
    }

    private func run() {
        // One batch per call, not the loop's body: a loop that never exits is a dead end to the
        // optimizer, which then leaves out the releases of what its body made. `let batch` in
        // `while true` leaked every batch in release builds, with its jobs and what they held
        // (each write's state: S10 of issue #53 held a copy of its state per durable write).
        // Test: "a write's value is released once it is written".
        while true { runBatch() }
    }

    /// Waits for jobs, and runs those given so far. (Never inlined into the loop, to be sure.)
    @inline(never)
    private func runBatch() {
        waiting.wait()
        var batch = queue.withLock { queue in
            defer { queue.jobs.removeAll(keepingCapacity: true) }
            return queue.jobs
        }
        // The semaphore was signalled once per job; the ones taken with this batch are spent.
        for _ in batch.dropFirst() { waiting.wait() }
        // Each job is let go once it has run, before the next runs: what it holds (an archiver, its
        // store and the store's claims) goes then, so that a job given after it finds it gone
        // (see `settle()`).
        for index in batch.indices {
            let job = batch[index]
            batch[index] = ArchiveWorker.done
            job()
        }
    }

    /// What a job that has run is replaced with.
    private static let done: @Sendable () -> Void = {}

    /// Returns once both workers have run, and let go, every job given to them before the call (on
    /// the thread of any worker: at once, without waiting). What those jobs held is freed then, unless held elsewhere: a
    /// store of this process whose owner is gone lets its keys go once the writes it was given are
    /// done, and a claim of one of its keys by another store waits for that (see
    /// `ArchiveKeyOwnership`).
    static func settle() {
        // Not on a worker: it would wait for itself, or for the other worker, which may be waiting
        // for it (an archiver freed there stores its writes on its own worker).
        guard !isAnyCurrent else { return }
        for worker in [shared, compaction, shared] where worker.queue.withLock({ $0.started }) {
            worker.sync {}
        }
    }

    /// Whether the caller is the thread of a worker (any archiver's).
    static var isAnyCurrent: Bool {
        Thread.current.threadDictionary[ArchiveWorker.marker] != nil
    }
}
