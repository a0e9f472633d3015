import Dispatch
import FlaskLocking
import FlaskTestSupport
import Foundation
import Synchronization
import Testing

@testable import FluxBus

/// The thread that runs the calling code, as a number.
private func threadNumber() -> UInt {
    UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
}

@Suite("Flux: awaited dispatch")
struct AwaitedDispatchTests {
    @Test("on an idle bus, off the main actor, the mix runs on the awaiting task's thread, as the bus's item")
    func idleBusRunsInline() async {
        let bus = Flux(label: "awaited.inline")
        let owner = Owner()
        let seen = Recorder<(thread: UInt, onBus: Bool)>()
        bus.observe("tick", owner: owner) { _, _ in seen.append((threadNumber(), bus.isCurrent)) }
        await bus.flush()  // the observer is registered
        // A flush returns once its item ran, before the drain that ran it found nothing more and
        // let go of the bus: until then the bus is not idle, and the mix would be queued (a serial
        // run of the suite found it so, every time).
        while bus.queue.withLock({ $0.draining }) { await Task.yield() }
        let caller = await Task.detached { () -> UInt in
            let thread = threadNumber()
            let receipt = await bus.dispatchAndWait("tick")
            #expect(receipt.observersCalled == 1)
            return thread
        }.value
        #expect(seen.all.count == 1)
        #expect(seen.all.first?.onBus == true, "the observer runs as the bus's work item")
        #expect(seen.all.first?.thread == caller, "no hop: the awaiting task's thread ran it")
        withExtendedLifetime(owner) {}
    }

    #if DEBUG  // the hold is a debug build's hook, and the old order trapped only there
        // Found by CI (see `ConcurrentApplyTests`): a drain that found nothing more to run let go of
        // the bus, and only then left it; a task that claimed it in between ran its mix on a bus that
        // was not current for it. Here the drain is held right after letting go, and a task claims the
        // bus then: it must find the bus free (a debug build traps otherwise) and current for its mix.
        @Test("a task that claims the bus as a drain lets go of it has the bus to itself, current for its mix")
        func claimAsDrainStops() async {
            final class Flag: Sendable { let raised = Atomic<Bool>(false) }
            let bus = Flux(label: "awaited.claimAsDrainStops")
            let owner = Owner()
            let seen = Recorder<Bool>()
            bus.observe("tick", owner: owner) { _, _ in seen.append(bus.isCurrent) }
            await bus.flush()
            let stopped = DispatchSemaphore(value: 0)
            let proceed = DispatchSemaphore(value: 0)
            let held = Flag()
            Flux.drainStoppedForTests.withLock { hook in
                hook = { drained in
                    // The drain that ran the tick: the flush's may stop here after the hook is set.
                    guard drained === bus, !seen.all.isEmpty, !held.raised.exchange(true, ordering: .relaxed)
                    else { return }
                    stopped.signal()
                    proceed.wait()
                }
            }
            defer { Flux.drainStoppedForTests.withLock { $0 = nil } }
            bus.dispatch("tick")  // run by a drain on the bus's thread, held once it has let go
            await Task.detached { stopped.wait() }.value
            let receipt = await Task.detached { await bus.dispatchAndWait("tick") }.value
            proceed.signal()
            #expect(receipt.observersCalled == 1)
            #expect(seen.all == [true, true])
            withExtendedLifetime(owner) {}
        }
    #endif

    @MainActor
    @Test("from the main actor the mix runs on the bus's thread, never on the main thread")
    func mainActorHops() async {
        let bus = Flux(label: "awaited.main")
        let owner = Owner()
        let onMain = Recorder<Bool>()
        bus.observe("tick", owner: owner) { _, _ in onMain.append(Thread.isMainThread) }
        _ = await bus.dispatchAndWait("tick")
        #expect(onMain.all == [false])
        withExtendedLifetime(owner) {}
    }

    @Test("a busy bus keeps the FIFO: an awaited dispatch waits behind a lock and the work queued before it")
    func busyBusKeepsOrder() async {
        let bus = Flux(label: "awaited.busy")
        let owner = Owner()
        let order = Recorder<String>()
        bus.observe("first", owner: owner) { _, _ in order.append("first") }
        bus.observe("awaited", owner: owner) { _, _ in order.append("awaited") }
        let lock = bus.lock()
        bus.dispatch("first")
        let awaited = Task.detached { await bus.dispatchAndWait("awaited") }
        let deadline = DispatchTime.now().uptimeNanoseconds + 30_000_000_000
        while bus.waitingItemCount < 2, DispatchTime.now().uptimeNanoseconds < deadline { await Task.yield() }
        #expect(bus.waitingItemCount == 2, "the awaited dispatch is queued behind the first")
        #expect(order.all.isEmpty, "nothing runs while the lock is held")
        lock.release()
        _ = await awaited.value
        #expect(order.all == ["first", "awaited"])
        withExtendedLifetime(owner) {}
    }

    @Test("work a mix run on the caller's thread enqueues runs afterwards, on the bus")
    func followUpsDrain() async {
        let bus = Flux(label: "awaited.follow")
        let owner = Owner()
        let echoes = Recorder<Int>()
        bus.observe("burst", owner: owner) { _, _ in
            for n in 0..<5 { bus.dispatch("echo", payload: ["n": n]) }
        }
        bus.observe("echo", owner: owner) { _, event in echoes.append(event.payload?["n"] as? Int ?? -1) }
        await Task.detached { _ = await bus.dispatchAndWait("burst") }.value
        await bus.flush()
        #expect(echoes.all == Array(0..<5))
        withExtendedLifetime(owner) {}
    }
}
