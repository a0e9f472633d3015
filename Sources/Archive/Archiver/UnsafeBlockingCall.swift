import Dispatch

/// A call that another thread runs while the caller waits for its result: how the archive thread
/// runs a caller's closure (``ArchiveWorker/sync(_:)``), which captures what the caller has at
/// hand (the type to decode and its default value, which need not be `Sendable`).
///
/// The invariants, kept by ``call(_:startingWith:)``, the one way to make one: the closure is
/// called once, then dropped, on the other thread, while the caller is blocked in `wait()`, which
/// returns only after that; so the non-escaping closure and what it captures are never used after,
/// or at the same time as, the caller. `outcome` is written before the semaphore is signalled and
/// read after the caller's wait returns. Checked in every build: a second run traps on the missing
/// closure, and `withoutActuallyEscaping` traps if anything still holds the closure once the call
/// returns.
///
/// `@unchecked Sendable` for those invariants: `sending` cannot say that the caller lends its
/// closure's captures for the duration of the call and has them back after.
final class BlockingCall<Result>: @unchecked Sendable {
    private var body: (() -> Result)?
    private let finished = DispatchSemaphore(value: 0)
    private var outcome: Result?

    private init(_ body: @escaping () -> Result) {
        self.body = body
    }

    /// Calls `body` through `start`, which must run the job it is given once (on another thread,
    /// or at once), and returns its result when it has run.
    static func call(_ body: () -> Result, startingWith start: (@escaping @Sendable () -> Void) -> Void) -> Result {
        withoutActuallyEscaping(body) { body in
            let call = BlockingCall(body)
            start { call.run() }
            return call.wait()
        }
    }

    private func run() {
        outcome = invoke()
        finished.signal()
    }

    /// Calls the body and lets go of it before returning.
    private func invoke() -> Result {
        guard let body = self.body else { preconditionFailure("a blocking call ran twice") }
        self.body = nil
        return body()
    }

    private func wait() -> Result {
        finished.wait()
        let result = outcome!
        outcome = nil
        return result
    }
}
