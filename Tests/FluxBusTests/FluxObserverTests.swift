import FlaskLocking
import FlaskTestSupport
import FluxBus
import Foundation
import Testing

enum AuthMixers {}
enum ShopMixers {}

@Suite("Flux: observers of named mixers")
struct FluxObserverTests {
    @Test("an observer is forgotten when its owner is freed, and the owner is not retained")
    func ownerDisposal() async {
        let bus = Flux()
        let seen = Recorder<Int>()
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            bus.observe("ping", owner: owner) { _, _ in seen.append(1) }
            bus.dispatch("ping")
            await bus.flush()
        }
        #expect(weakOwner == nil)
        bus.dispatch("ping")
        await bus.flush()
        #expect(seen.count == 1)
        #expect(await bus.observerCount(of: "ping") == 0)
    }

    @Test(
        "an owner dropped while it observes: the bus holds it for at most 128 items, and never into a task",
        arguments: [100, 300])
    func ownerHeldByTheBus(dispatches: Int) async {
        let bus = Flux()
        let events = Recorder<String>()
        let keeper = LockedValue<WatchedOwner?>(WatchedOwner { events.append("freed") })
        let calls = Recorder<Int>()
        bus.observe("ping", owner: keeper.withLock { $0! }) { _, _ in
            calls.append(1)
            keeper.withLock { $0 = nil }  // every reference but the bus's
        }
        // Queued behind a lock, the dispatches and the task run as one batch.
        let lock = bus.lock()
        for _ in 0..<dispatches { bus.dispatch("ping") }
        bus.perform { events.append("task") }
        lock.release()
        await bus.flush()
        #expect((1...min(dispatches, 128)).contains(calls.count))
        #expect(events.all == ["freed", "task"])
        #expect(await bus.observerCount(of: "ping") == 0)
    }

    @Test("cancel stops an observation before the next item")
    func cancel() async {
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<Int>()
        let observation = bus.observe("ping", owner: owner) { _, _ in seen.append(1) }
        bus.dispatch("ping")
        await bus.flush()
        // Hold the main lane so both steps below are queued before either runs.
        let lock = bus.lock()
        bus.dispatch("ping")
        observation.cancel()
        lock.release()
        await bus.flush()
        // The cancel runs on the exclusive lane, ahead of the dispatch queued before it.
        #expect(seen.count == 1)
    }

    @Test("observers of one mixer run in registration order; names are scoped by domain")
    func orderAndDomains() async {
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<String>()
        bus.observe(FluxMixerName("login", domain: AuthMixers.self), owner: owner) { _, _ in seen.append("auth1") }
        bus.observe(FluxMixerName("login", domain: AuthMixers.self), owner: owner) { _, _ in seen.append("auth2") }
        bus.observe(FluxMixerName("login", domain: ShopMixers.self), owner: owner) { _, _ in seen.append("shop") }
        bus.dispatch(FluxMixerName("login", domain: AuthMixers.self))
        await bus.flush()
        #expect(seen.all == ["auth1", "auth2"])
        #expect(FluxMixerName("login", domain: AuthMixers.self).description == "AuthMixers.login")
    }

    @Test("a mixer's observers can all go and new ones come: deliveries reach exactly the live ones")
    func observersComeAndGo() async {
        // The bus remembers the last mixer's observers without retaining them; removing the last
        // observer of a name must forget that, or a later dispatch would reach freed observers.
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<String>()
        let first = bus.observe("ping", owner: owner) { _, _ in seen.append("first") }
        let second = bus.observe("ping", owner: owner) { _, _ in seen.append("second") }
        bus.dispatch("ping")
        await bus.flush()
        first.cancel()
        bus.dispatch("ping")
        await bus.flush()
        second.cancel()
        bus.dispatch("ping")
        await bus.flush()
        #expect(await bus.observerCount(of: "ping") == 0)
        bus.observe("ping", owner: owner) { _, _ in seen.append("third") }
        bus.dispatch("pong")  // another name in between
        bus.dispatch("ping")
        await bus.flush()
        #expect(seen.all == ["first", "second", "second", "third"])
    }

    @Test("a name reaches its observers however its string was made, short or long, in any order")
    func namesByValue() async {
        // The bus finds recent names by the bits of their strings: a name built at run time has
        // other bits than the literal, and must still be found (by its text).
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<String>()
        let long = "settings.display.brightness.changed"
        bus.observe("ping", owner: owner) { _, _ in seen.append("ping") }
        bus.observe(FluxMixerName(long), owner: owner) { _, _ in seen.append("long") }
        bus.observe(FluxMixerName("ping", domain: AuthMixers.self), owner: owner) { _, _ in seen.append("auth") }
        let builtPing = String("gnip".reversed())
        let builtLong = ["settings", "display", "brightness", "changed"].joined(separator: ".")
        for name in [
            FluxMixerName("ping"), FluxMixerName(builtLong), FluxMixerName(builtPing), FluxMixerName(long),
            FluxMixerName(builtPing, domain: AuthMixers.self), FluxMixerName("ping"), FluxMixerName("pong"),
        ] {
            bus.dispatch(name)
        }
        await bus.flush()
        #expect(seen.all == ["ping", "long", "ping", "long", "auth", "ping"])
    }

    @Test("sixty names dispatched in turn, with and without a domain, each reach only their own observer")
    func manyNamesInTurn() async {
        // More names than the bus's cache of recent names holds, many sharing its slots: each
        // dispatch must still reach exactly its name's observer.
        let bus = Flux()
        let owner = Owner()
        let seen = Recorder<String>()
        let names = (0..<30).flatMap {
            [FluxMixerName("mixer\($0)"), FluxMixerName("mixer\($0)", domain: AuthMixers.self)]
        }
        for name in names { bus.observe(name, owner: owner) { _, _ in seen.append("\(name)") } }
        var expected: [String] = []
        for round in 0..<3 {
            for index in names.indices {
                let name = names[(index * 7 + round) % names.count]
                bus.dispatch(name)
                expected.append("\(name)")
            }
        }
        await bus.flush()
        #expect(seen.all == expected)
    }

    @Test("seven observers of one name, some owners freed and one cancelled: the rest run, in order")
    func observersOfOneName() async {
        let bus = Flux()
        let seen = Recorder<Int>()
        var owners: [Owner?] = (0..<7).map { _ in Owner() }
        var observations: [FluxObservation] = []
        for index in 0..<7 {
            observations.append(bus.observe("tick", owner: owners[index]!) { _, _ in seen.append(index) })
        }
        bus.dispatch("tick")
        await bus.flush()
        #expect(seen.all == Array(0..<7))
        owners[1] = nil
        owners[4] = nil
        observations[5].cancel()
        seen.removeAll()
        bus.dispatch("tick")
        bus.dispatch("tick")
        await bus.flush()
        #expect(seen.all == [0, 2, 3, 6, 0, 2, 3, 6])
        #expect(await bus.observerCount(of: "tick") == 4)
        #expect(owners.compactMap { $0 }.count == 5)
    }
}

@Suite("Diagnostics: a long-running process")
struct DiagnosticsHandlerTests {
    @Test("reporting does not make the handler deeper: the stack at the 10,000th report is the stack at the 10th")
    func handlerStaysFlat() {
        // Found from outside: each report wrapped the stored handler in two more conversion thunks,
        // so a process that kept reporting slowed down and overflowed its stack (about 87,000).
        let bus = Flux()
        let depths = Recorder<Int>()
        bus.diagnostics = { _ in depths.append(Thread.callStackReturnAddresses.count) }
        for _ in 0..<10_000 { bus.report(.lockHeldLong, "report") }
        let all = depths.all
        #expect(all.count == 10_000)
        #expect(all[9_999] == all[9], "the stack grew from \(all[9]) to \(all[9_999]) frames")
        // Reading and setting the handler does not deepen it either.
        for _ in 0..<1_000 { bus.diagnostics = bus.diagnostics }
        bus.report(.lockHeldLong, "report")
        #expect(depths.all.last == all[9])
    }
}
