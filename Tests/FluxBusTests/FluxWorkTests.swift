import FlaskTestSupport
import FluxBus
import Testing

/// Work that records its name when it runs.
final class NamedWork: FluxWork, @unchecked Sendable {
    // `@unchecked Sendable`: immutable; the recorder is thread-safe.
    private let name: String
    private let log: Recorder<String>

    init(_ name: String, log: Recorder<String>) {
        self.name = name
        self.log = log
    }

    override func run() { log.append(name) }

    override func finished() { log.append(name + " finished") }
}

@Suite("Flux: work items as objects")
struct FluxWorkTests {
    @Test("work objects run once each, in FIFO order with closures and mixers")
    func fifoWithClosuresAndMixers() async {
        let bus = Flux()
        let owner = Owner()
        let log = Recorder<String>()
        bus.observe("mixer", owner: owner) { _, _ in log.append("mixer") }
        bus.perform(NamedWork("first", log: log))
        bus.perform { log.append("closure") }
        bus.dispatch("mixer")
        bus.perform(mix: "labelled", NamedWork("second", log: log))
        await bus.flush()
        #expect(log.all == ["first", "first finished", "closure", "mixer", "second", "second finished"])
    }

    @Test("work waits behind a lock, and middleware see labelled work as a mix and plain work as none")
    func lockedAndReported() async {
        let bus = Flux()
        let recorder = ScriptedMiddleware("recorder")
        bus.use(recorder)
        let log = Recorder<String>()
        let lock = bus.lock()
        bus.perform(mix: "labelled", NamedWork("labelled", log: log))
        bus.perform(NamedWork("plain", log: log))
        await bus.settleExclusive()
        #expect(log.all.isEmpty)
        lock.release()
        await bus.flush()
        #expect(log.all == ["labelled", "labelled finished", "plain", "plain finished"])
        #expect(recorder.reports.all.map(\.mixer) == ["labelled"])
        #expect(recorder.reports.all.map(\.kind) == [.task])
    }

    @Test("the bus lets go of work once it has run, and of work it purged")
    func released() async {
        let bus = Flux()
        let log = Recorder<String>()
        weak var ran: NamedWork?
        weak var purged: NamedWork?
        do {
            let first = NamedWork("ran", log: log)
            ran = first
            bus.perform(first)
        }
        await bus.flush()
        let lock = bus.lock()
        do {
            let second = NamedWork("purged", log: log)
            purged = second
            bus.perform(second)
        }
        #expect(purged != nil)
        #expect(bus.purge() == 1)
        lock.release()
        await bus.flush()
        #expect(ran == nil)
        #expect(purged == nil)
        #expect(log.all == ["ran", "ran finished"], "work purged is told dropped(), never finished()")
    }

    @Test("finished() follows run() however work is queued: plain or as a mix, with middleware or without")
    func finishedEveryWay() async {
        let bus = Flux()
        let log = Recorder<String>()
        bus.perform(NamedWork("plain", log: log))
        bus.perform(mix: "labelled", NamedWork("mix", log: log))
        await bus.flush()
        bus.use(ScriptedMiddleware("recorder"))
        bus.perform(NamedWork("plain under middleware", log: log))
        await bus.flush()
        #expect(
            log.all == [
                "plain", "plain finished", "mix", "mix finished", "plain under middleware",
                "plain under middleware finished",
            ])
    }
}
