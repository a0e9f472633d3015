import Dispatch
import FlaskTestSupport
import FluxBus
import Testing

@Suite("Flux: backlog diagnostic")
struct FluxBacklogTests {
    @Test("the default high-water mark is 100,000 items")
    func defaultMark() {
        #expect(Flux().backlogHighWaterMark == 100_000)
    }

    @Test("reaching the high-water mark is reported once, with the bus and the depth; again after it came down")
    func oncePerCrossing() async {
        let bus = Flux(label: "backlog.test")
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        bus.backlogHighWaterMark = 10
        // A lock holds the main lane back, so the items stay queued.
        var lock = bus.lock()
        for _ in 0..<25 { bus.dispatch("tick") }
        #expect(diagnostics.all.map(\.code) == [.backlog])
        #expect(diagnostics.all.first?.message.contains("bus backlog.test: 10 work items are waiting") == true)
        lock.release()
        await bus.flush()
        // Below the mark now: the next crossing is reported again.
        lock = bus.lock()
        for _ in 0..<12 { bus.dispatch("tick") }
        #expect(diagnostics.all.map(\.code) == [.backlog, .backlog])
        lock.release()
        await bus.flush()
    }

    @Test("a backlog that never comes down below the mark is reported once")
    func sustained() async {
        let bus = Flux()
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        bus.backlogHighWaterMark = 10
        let owner = Owner()
        // While the bus runs a batch of 15, the first of them queues 12 more behind it: the backlog
        // never went below the mark, so reaching 10 again is the same crossing.
        bus.observe("first", owner: owner) { _, _ in
            for _ in 0..<12 { bus.dispatch("tick") }
        }
        let lock = bus.lock()
        bus.dispatch("first")
        for _ in 0..<14 { bus.dispatch("tick") }
        lock.release()
        await bus.flush()
        #expect(diagnostics.all.map(\.code) == [.backlog])
    }

    @Test("items the bus has taken to run but not run yet are waiting too (a bus that woke late takes many at once)")
    func takenButNotRun() async {
        let bus = Flux(label: "backlog.late")
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        bus.backlogHighWaterMark = 50
        let gate = BusGate(on: bus, at: "first")
        // 45 items wait behind a lock, below the mark; once it is released the bus takes all of
        // them as one batch and stays on the first. 5 more make 50 waiting, though the queue
        // itself holds only 5.
        let lock = bus.lock()
        bus.dispatch("first")
        for _ in 0..<44 { bus.dispatch("tick") }
        lock.release()
        gate.waitUntilHeld()
        for _ in 0..<4 { bus.dispatch("tick") }
        #expect(diagnostics.all.isEmpty)
        bus.dispatch("tick")
        #expect(diagnostics.all.map(\.code) == [.backlog])
        #expect(diagnostics.all.first?.message.contains("bus backlog.late: 50 work items are waiting") == true)
        gate.open()
        await bus.flush()
        #expect(diagnostics.all.count == 1)
    }

    @Test("a dispatch that finds the backlog down to half the mark arms the next crossing, mid-batch")
    func rearmedByDispatch() async {
        let bus = Flux(label: "backlog.rearm")
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        bus.backlogHighWaterMark = 10
        let gate = BusGate(on: bus, at: "block")
        // 12 items behind a lock: the tenth is reported. Released, the bus takes all 12, runs 8
        // and stays on the ninth: 4 of its batch are waiting, and it does not look at the queue
        // until they ran.
        let lock = bus.lock()
        for _ in 0..<8 { bus.dispatch("tick") }
        bus.dispatch("block")
        for _ in 0..<3 { bus.dispatch("tick") }
        #expect(diagnostics.all.count == 1)
        lock.release()
        gate.waitUntilHeld()
        // 4 + 1 = 5 waiting, half the mark: armed again. 5 more make 10: a second crossing.
        for _ in 0..<5 { bus.dispatch("tick") }
        #expect(diagnostics.all.count == 1)
        bus.dispatch("tick")
        #expect(diagnostics.all.count == 2)
        #expect(diagnostics.all.last?.message.contains("bus backlog.rearm: 10 work items are waiting") == true)
        gate.open()
        await bus.flush()
    }

    @Test("nil turns the diagnostic off")
    func off() async {
        let bus = Flux()
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        bus.backlogHighWaterMark = nil
        #expect(bus.backlogHighWaterMark == nil)
        let lock = bus.lock()
        for _ in 0..<1_000 { bus.dispatch("tick") }
        lock.release()
        await bus.flush()
        #expect(diagnostics.all.isEmpty)
    }
}
