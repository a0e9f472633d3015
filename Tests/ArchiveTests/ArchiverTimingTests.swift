import Archive
import FlaskTestSupport
import FlaskTesting
import Foundation
import Testing

/// The archiver's timing, driven by a manual clock: no test here waits for real time.
@Suite("Archiver timing: debounce, maximum wait, write now")
struct ArchiverTimingTests {
    /// An archiver on a manual clock, writing to a memory store.
    struct Rig {
        let clock = ManualArchiveClock()
        let store = InMemoryArchiveStore()
        let archiver: Archiver

        init() {
            archiver = Archiver(store: store, clock: clock)
        }

        /// Schedules `value` under `key`.
        func schedule(_ value: Int, key: String = "k", after delay: Double, maxDelay: Double = 3_600) {
            archiver.scheduleWrite(key: key, after: delay, maxDelay: maxDelay) { Data("\(value)".utf8) }
        }

        /// Moves the clock and waits for the writes its wake-ups started.
        func advance(_ seconds: Double) {
            clock.advance(by: .milliseconds(Int(seconds * 1_000)))
            archiver.waitForWritesInProgress()
        }

        /// What the store holds under `key`, as a number.
        func value(_ key: String = "k") -> Int? {
            (try? store.data(forKey: key)).flatMap { $0 }.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
        }
    }

    @Test("a burst of writes is written once, delay after the last, with the last value")
    func debounce() {
        let rig = Rig()
        for value in 1...100 { rig.schedule(value, after: 2) }
        rig.advance(1.999)
        #expect(rig.store.writes.count == 0)
        rig.advance(0.001)
        #expect(rig.store.writes == ["k"])
        #expect(rig.value() == 100)
        rig.advance(60)
        #expect(rig.store.writes.count == 1)
    }

    @Test("each call moves the deadline: the wake-up armed for the first deadline writes nothing")
    func deadlineMoves() {
        let rig = Rig()
        rig.schedule(1, after: 2)
        rig.advance(1)
        rig.schedule(2, after: 2)
        rig.advance(1)
        #expect(rig.store.writes.count == 0, "the first deadline passed, but the key was scheduled since")
        rig.advance(1)
        #expect(rig.value() == 2)
        #expect(rig.store.writes.count == 1)
    }

    @Test("a shorter delay than the one pending is honoured: an earlier wake-up is armed")
    func shorterDelayArmsEarlier() {
        // The cause of archiveNow's wait: moving a deadline earlier armed no earlier timer, so the
        // write waited for the one armed for the long delay.
        let rig = Rig()
        rig.schedule(1, after: 30)
        rig.schedule(2, after: 0)
        rig.advance(0)
        #expect(rig.value() == 2)
        rig.advance(30)
        #expect(rig.store.writes.count == 1, "the wake-up of the long delay finds nothing to write")
    }

    @Test("while calls keep coming, a write happens maxDelay after the first unsaved one")
    func maximumWait() {
        let rig = Rig()
        var writtenAt: [(seconds: Double, value: Int)] = []
        // A change every 100 ms for 12 s, each debounced by 2 s: the debounce alone never writes.
        for tick in 1...120 {
            rig.schedule(tick, after: 2, maxDelay: 5)
            let before = rig.store.writes.count
            rig.advance(0.1)
            if rig.store.writes.count > before, let value = rig.value() {
                writtenAt.append((Double(tick) / 10, value))
            }
        }
        // Pending since 0 s, written at 5 s with the value set at 4.9 s (tick 50); the next, pending
        // since 5.0 s, written at 10 s.
        #expect(writtenAt.map(\.seconds) == [5.0, 10.0])
        #expect(writtenAt.map(\.value) == [50, 100])
        rig.advance(2)
        #expect(rig.value() == 120, "the last burst is written by its debounce")
    }

    @Test("the default maximum wait is at most 5 seconds")
    func defaultMaximumWait() {
        #expect(Archiver.defaultMaxDelay <= 5)
        let rig = Rig()
        for tick in 0..<100 {
            rig.archiver.scheduleWrite(key: "k", after: 2) { Data("\(tick)".utf8) }
            rig.advance(0.1)
        }
        #expect(rig.store.writes.count >= 2)
    }

    @Test("writeNow writes at once, replaces the pending write, and calls its completion once stored")
    func writeNow() async {
        let rig = Rig()
        rig.schedule(1, after: 30)
        let problem = await withCheckedContinuation { (continuation: CheckedContinuation<ArchiveProblem?, Never>) in
            rig.archiver.writeNow(key: "k", encode: { Data("2".utf8) }) { continuation.resume(returning: $0) }
        }
        #expect(problem == nil)
        #expect(rig.value() == 2, "stored when the completion runs, without time passing")
        #expect(rig.archiver.pendingKeys.isEmpty)
        rig.advance(60)
        #expect(rig.value() == 2, "the older pending value is not written after it")
        #expect(rig.store.writes.count == 1)
    }

    @Test("writeNow with no completion writes all the same (it wrote nothing)")
    func writeNowWithoutCompletion() {
        let rig = Rig()
        rig.schedule(1, after: 30)
        rig.archiver.writeNow(key: "k", encode: { Data("2".utf8) })
        rig.archiver.waitForWritesInProgress()
        #expect(rig.value() == 2)
        #expect(rig.archiver.pendingKeys.isEmpty)
        #expect(rig.store.writes.count == 1)
    }

    @Test("a write that fails reaches writeNow's completion")
    func writeNowFailure() async {
        let rig = Rig()
        rig.store.failsWrites = true
        let problem = await withCheckedContinuation { (continuation: CheckedContinuation<ArchiveProblem?, Never>) in
            rig.archiver.writeNow(key: "k", encode: { Data("1".utf8) }) { continuation.resume(returning: $0) }
        }
        #expect(problem?.kind == .storeFailed(operation: "write"))
    }

    @Test("keys are timed apart")
    func keysApart() {
        let rig = Rig()
        rig.schedule(1, key: "a", after: 1)
        rig.schedule(2, key: "b", after: 3)
        rig.advance(1)
        #expect(rig.value("a") == 1 && rig.value("b") == nil)
        rig.advance(2)
        #expect(rig.value("b") == 2)
    }
}

/// A write that fails is never dropped: it stays pending, is retried with back-off, and is
/// reported once when the failures start and once when they end.
@Suite("Archiver failures: retried, reported once, recovered")
struct ArchiverFailureTests {
    typealias Rig = ArchiverTimingTests.Rig

    /// The problems and recoveries reported for the rig's writes.
    final class Reports: Sendable {
        let problems = Recorder<ArchiveProblem>()
        let recoveries = Recorder<ArchiveRecovery>()
    }

    func schedule(_ rig: Rig, _ value: Int, _ reports: Reports, after delay: Double = 2) {
        rig.archiver.scheduleWrite(
            key: "k", after: delay, maxDelay: 3_600, encode: { Data("\(value)".utf8) },
            onFailure: { reports.problems.append($0) }, onRecovery: { reports.recoveries.append($0) })
    }

    @Test("a failed write stays pending, is retried after 1, 2, 4... seconds, and is written once the fault is gone")
    func retriedWithBackOff() {
        let rig = Rig()
        let reports = Reports()
        rig.store.failsWrites = true
        schedule(rig, 1, reports)
        rig.advance(2)
        #expect(rig.store.attempts.count == 1)
        #expect(reports.problems.count == 1)
        #expect(rig.archiver.pendingKeys == ["k"])
        #expect(rig.archiver.failingKeys == ["k"])
        // The first retry comes a second later, not sooner, even when a commit schedules again.
        schedule(rig, 2, reports, after: 0)
        rig.advance(0.999)
        #expect(rig.store.attempts.count == 1)
        rig.advance(0.001)
        #expect(rig.store.attempts.count == 2)
        rig.advance(1.999)
        #expect(rig.store.attempts.count == 2)
        rig.advance(0.001)
        #expect(rig.store.attempts.count == 3)
        // Reported once for the whole episode.
        #expect(reports.problems.count == 1)
        rig.store.failsWrites = false
        rig.advance(4)
        #expect(rig.store.attempts.count == 4)
        #expect(rig.value() == 2, "the latest state is the one written")
        #expect(reports.recoveries.all == [ArchiveRecovery(key: "k", failedAttempts: 3)])
        #expect(rig.archiver.pendingKeys == [])
        #expect(rig.archiver.failingKeys == [])
        // The debounce holds again.
        schedule(rig, 3, reports)
        rig.advance(2)
        #expect(rig.value() == 3)
        #expect(reports.problems.count == 1)
    }

    @Test("the wait between attempts grows to 30 seconds and stays there")
    func backOffIsBounded() {
        let rig = Rig()
        let reports = Reports()
        rig.store.failsWrites = true
        schedule(rig, 1, reports, after: 0)
        rig.advance(0)
        var times: [Double] = []
        var elapsed = 0.0
        while times.count < 8 {
            let before = rig.store.attempts.count
            rig.advance(0.5)
            elapsed += 0.5
            if rig.store.attempts.count > before { times.append(elapsed) }
        }
        let gaps = zip(times, [0] + times).map { $0 - $1 }
        #expect(gaps == [1, 2, 4, 8, 16, 30, 30, 30])
        #expect(Archiver.retryDelays == [1, 2, 4, 8, 16, 30])
        #expect(reports.problems.count == 1)
    }

    @Test("flush writes a failing key without waiting for the back-off; failing again, it stays pending")
    func flushWritesFailingKeys() {
        let rig = Rig()
        let reports = Reports()
        rig.store.failsWrites = true
        schedule(rig, 1, reports, after: 0)
        rig.advance(0)
        rig.archiver.flush()
        #expect(rig.store.attempts.count == 2)
        #expect(rig.archiver.pendingKeys == ["k"])
        rig.store.failsWrites = false
        rig.archiver.flush()
        #expect(rig.value() == 1)
        #expect(rig.archiver.pendingKeys == [])
        #expect(reports.problems.count == 1)
        #expect(reports.recoveries.count == 1)
    }

    @Test("a write asked for now that fails tells its caller, stays pending and is retried")
    func writeNowFailureIsRetried() async {
        let rig = Rig()
        let reports = Reports()
        rig.store.failsWrites = true
        let outcome: ArchiveProblem? = await withCheckedContinuation { continuation in
            rig.archiver.writeNow(
                key: "k", onFailure: { reports.problems.append($0) }, onRecovery: { reports.recoveries.append($0) },
                encode: { Data("7".utf8) }
            ) { continuation.resume(returning: $0) }
        }
        #expect(outcome?.kind == .storeFailed(operation: "write"))
        #expect(reports.problems.count == 1)
        #expect(rig.archiver.pendingKeys == ["k"])
        rig.store.failsWrites = false
        rig.advance(1)
        #expect(rig.value() == 7)
        #expect(reports.recoveries.count == 1)
    }

    @Test("a failed write never comes back over a newer one, nor over a removal")
    func retryNeverOverwritesNewer() async {
        // Found in review: a write that failed went back to pending whenever nothing of its key was,
        // although a newer write had been started meanwhile.
        let rig = Rig()
        let reports = Reports()
        let gate = DispatchSemaphore(value: 0)
        // The first write fails while a newer one is written now, before the failure is handled.
        rig.store.failsWrites = true
        rig.store.whenAttempted { gate.wait() }
        schedule(rig, 1, reports, after: 0)
        rig.clock.advance(by: .zero)
        rig.store.whenAttempted(nil)
        rig.store.failsWrites = false
        let written: ArchiveProblem? = await withCheckedContinuation { continuation in
            rig.archiver.writeNow(key: "k", encode: { Data("2".utf8) }) { continuation.resume(returning: $0) }
            gate.signal()
        }
        #expect(written == nil)
        #expect(rig.value() == 2)
        rig.advance(60)
        #expect(rig.value() == 2, "the older write is not retried over the newer one")
        #expect(rig.archiver.pendingKeys == [])
        // A removal while a failed write is being handled: the key stays removed.
        rig.store.failsWrites = true
        rig.store.whenAttempted { gate.wait() }
        schedule(rig, 3, reports, after: 0)
        rig.clock.advance(by: .zero)
        rig.store.whenAttempted(nil)
        rig.store.failsWrites = false
        let removal = Task.detached { try rig.archiver.remove(key: "k") }
        gate.signal()
        try? await removal.value
        rig.advance(60)
        #expect(rig.value() == nil, "the removed key does not come back")
    }

    @Test("restoring a key whose pending write fails restores that write's value, not the older archive")
    func restoreWhileFailing() {
        let rig = Rig()
        let reports = Reports()
        schedule(rig, 1, reports, after: 0)
        rig.advance(0)
        rig.store.failsWrites = true
        schedule(rig, 2, reports, after: 30)
        let restored = rig.archiver.restore(Int.self, key: "k", defaultValue: 0)
        #expect(restored.value == 2)
        #expect(rig.archiver.pendingKeys == ["k"], "and it stays pending")
        rig.store.failsWrites = false
        rig.advance(1)
        #expect(rig.value() == 2)
    }

    @Test("a value that cannot be encoded is reported once per episode, and not retried")
    func encodingFailureReportedOnce() {
        let rig = Rig()
        let reports = Reports()
        struct Refused: Error {}
        for _ in 0..<3 {
            rig.archiver.scheduleWrite(
                key: "k", after: 1, encode: { throw Refused() }, onFailure: { reports.problems.append($0) })
            rig.advance(1)
        }
        #expect(reports.problems.count == 1)
        #expect(rig.archiver.pendingKeys == [])
        schedule(rig, 5, reports, after: 1)
        rig.advance(1)
        #expect(rig.value() == 5)
        #expect(reports.recoveries.count == 1)
    }
}
