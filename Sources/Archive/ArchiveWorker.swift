import Foundation

/// The one thread that encodes, decodes and stores archives, one job at a time, in the order given.
///
/// A thread of its own, not a Dispatch queue, for its stack: encoding and decoding recurse once per
/// level of the value, and a Dispatch worker's stack (512 KB on Apple platforms) overflows long
/// before the 512 levels a JSON reader accepts. This one has ``stackSize`` bytes, reserved but only
/// touched as deep values need it. Shared by every archiver, started at the first job.
///
/// `@unchecked Sendable`: the job list and the thread are only touched with `condition` held.
final class ArchiveWorker: @unchecked Sendable {
    static let shared = ArchiveWorker()

    /// 64 MB: about 20,000 levels of `JSONEncoder` recursion in a debug build, four times what the
    /// archive encoder and decoder allow (see `ArchiveEncoder.maximumNesting`).
    static let stackSize = 64 << 20

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var thread: Thread?

    /// Runs `job` on the worker after the jobs given before it.
    func async(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if thread == nil { start() }
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the worker after the jobs given before it, and returns its result. Runs it at
    /// once when called on the worker itself (from a job, a store or a failure handler).
    func sync<Result>(_ body: () -> Result) -> Result {
        if isCurrent { return body() }
        return withoutActuallyEscaping(body) { body in
            let call = BlockingCall(body)
            async { call.run() }
            return call.wait()
        }
    }

    /// Whether the caller is the worker's thread.
    var isCurrent: Bool {
        Thread.current.threadDictionary[ArchiveWorker.marker] != nil
    }

    private static let marker = "flask.archive.worker"

    /// With `condition` held.
    private func start() {
        let thread = Thread { [self] in
            Thread.current.threadDictionary[ArchiveWorker.marker] = true
            run()
        }
        thread.name = "flask.archive"
        thread.stackSize = ArchiveWorker.stackSize
        self.thread = thread
        thread.start()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job() }
        }
    }
}

/// A call that another thread runs while the caller waits for its result.
///
/// `@unchecked Sendable`: `body` is only called, then dropped, on the worker while the caller is
/// blocked in `wait()`, which returns only after that, so the non-escaping closure and what it
/// captures are never used after, or at the same time as, the caller (`withoutActuallyEscaping`
/// checks that nothing holds it any more); `outcome` is handed over under `condition`.
private final class BlockingCall<Result>: @unchecked Sendable {
    private var body: (() -> Result)?
    private let condition = NSCondition()
    private var outcome: Result?
    private var done = false

    init(_ body: @escaping () -> Result) {
        self.body = body
    }

    func run() {
        let result = invoke()
        condition.lock()
        outcome = result
        done = true
        condition.signal()
        condition.unlock()
    }

    /// Calls the body and lets go of it before returning.
    private func invoke() -> Result {
        let body = self.body!
        self.body = nil
        return body()
    }

    func wait() -> Result {
        condition.lock()
        while !done { condition.wait() }
        let result = outcome!
        outcome = nil
        condition.unlock()
        return result
    }
}
