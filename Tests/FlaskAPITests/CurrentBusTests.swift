import FlaskAPI
import FlaskTestSupport
import Foundation
import Synchronization
import Testing

private struct TallyState: State {
    var count = 0
}

private enum TallyMixers: SubstanceMixer {
    case increment
}

private struct Add: FlaskAction {
    let amount: Int
}

/// A tally made without a bus: it takes the current one.
private func makeTally() -> ReactiveSubstance<TallyState, TallyMixers> {
    ReactiveSubstance<TallyState, TallyMixers>(name: "tally") { define in
        define(mix: .increment) { tally, _, react, _ in
            tally.prop.count += 1
            react()
        }
        define(Add.self) { tally, add, react, _ in
            tally.prop.count += add.amount
            react()
        }
    }
}

@Suite("Flask.withBus: a task-local current bus for tests and independent parts of an app")
struct CurrentBusTests {
    @Test("inside withBus, new substances, dispatches, awaited dispatches, locks and reactors use that bus")
    func everyCallUsesTheCurrentBus() async {
        let bus = Flux(label: "current.bus")
        await Flask.withBus(bus) {
            #expect(Flask.bus === bus)
            #expect(Flux.current === bus)
            let tally = makeTally()
            #expect(tally.bus === bus)
            #expect(Substance<TallyState>().bus === bus)
            #expect(Flask.newSubstance(definedBy: TallyState.self).bus === bus)
            let outcome = await Flask.apply(TallyMixers.increment)
            #expect(outcome.wasApplied)
            Flask.substances(reactTo: Add(amount: 2))
            await bus.flush()
            #expect(tally.state.count == 3)
            let lock = Flask.lock()
            #expect(bus.openLocks.count == 1)
            lock.release()
            let owner = WatchedOwner {}
            let reactor = Flask.reactor(attachedTo: owner, mixing: [])
            #expect(reactor.bus === bus)
            Flask.detachReactor(from: owner)
        }
        #expect(Flask.bus === Flux.shared, "outside, the shared bus again")
    }

    /// Run many at once: each sees only its own bus, so their tallies never mix.
    @Test("tests that each set their own bus run in parallel without sharing state", arguments: 0..<8)
    func parallelTestsAreIsolated(index: Int) async {
        await Flask.withBus(Flux(label: "current.parallel.\(index)")) {
            let tally = makeTally()
            for _ in 0..<50 { Flask.substances(reactTo: TallyMixers.increment) }
            await Flask.bus.flush()
            #expect(tally.state.count == 50)
        }
    }

    @Test("the bus follows child tasks and Task { } made inside, not detached tasks; withBus nests")
    func theBusFollowsStructuredCode() async {
        let outer = Flux(label: "current.outer")
        let inner = Flux(label: "current.inner")
        await Flask.withBus(outer) {
            async let child = Flask.bus
            #expect(await child === outer)
            #expect(await Task { Flask.bus }.value === outer)
            #expect(await Task.detached { Flask.bus }.value === Flux.shared)
            Flask.withBus(inner) { #expect(Flask.bus === inner) }
            #expect(Flask.bus === outer)
        }
    }

    @Test("a bus given explicitly wins over the current one")
    func anExplicitBusWins() async {
        let current = Flux(label: "current.implicit")
        let explicit = Flux(label: "current.explicit")
        await Flask.withBus(current) {
            let tally = ReactiveSubstance<TallyState, TallyMixers>(name: "explicit", bus: explicit) { define in
                define(mix: .increment) { tally, _, react, _ in
                    tally.prop.count += 1
                    react()
                }
            }
            #expect(tally.bus === explicit)
            await Flask.apply(TallyMixers.increment, on: explicit)
            #expect(tally.state.count == 1)
        }
    }
}

/// Where each piece of the bus's code found `Flask.bus`.
private final class BusSightings: Sendable {
    private let seen = Mutex<[String: Flux]>([:])

    func note(_ place: String) {
        let bus = Flask.bus
        seen.withLock { $0[place] = bus }
    }

    subscript(place: String) -> Flux? { seen.withLock { $0[place] } }
}

@Suite("Flask.bus is the bus that runs the code")
struct RunningBusTests {
    /// A tally on `bus` whose mixer body notes where it ran.
    private func tally(on bus: Flux, _ sightings: BusSightings) -> ReactiveSubstance<TallyState, TallyMixers> {
        ReactiveSubstance<TallyState, TallyMixers>(name: "tally", bus: bus) { define in
            define(mix: .increment) { tally, _, react, _ in
                sightings.note("mixer")
                tally.prop.count += 1
                react()
            }
        }
    }

    @Test("a mixer body, a handler, a middleware and a lock's onRelease see their bus, after a plain dispatch")
    func plainDispatch() async {
        let bus = Flux(label: "running.plain")
        let sightings = BusSightings()
        let tally = tally(on: bus, sightings)
        let owner = WatchedOwner {}
        let reactor = Flask.reactor(attachedTo: owner, mixing: tally)
        let pausedShared = Recorder<Bool>()
        let released = Recorder<Bool>()
        reactor.handler = { _, _ in
            sightings.note("handler")
            // docs/locks.md: a handler takes a lock with no `on:`; it must pause its own bus.
            let lock = Flask.lock()
            // This lock, not any: other tests take locks on the shared bus meanwhile.
            pausedShared.append(Flux.shared.openLocks.contains { $0 === lock })
            lock.onRelease = { _ in
                sightings.note("onRelease")
                released.append(true)
            }
            DispatchQueue.global().async { lock.release() }
        }
        bus.use(Noting(sightings))
        Flask.substances(reactTo: TallyMixers.increment, on: bus)
        await bus.flush()
        // The bus goes on once the lock is released, maybe before its onRelease has run.
        await released.waitForCount(1)
        for place in ["mixer", "handler", "middleware", "onRelease"] {
            #expect(sightings[place] === bus, "\(place) saw \(sightings[place]?.label ?? "nothing")")
        }
        #expect(pausedShared.all == [false], "the handler's lock paused the shared bus")
        withExtendedLifetime(reactor) {}
    }

    @Test(
        "an awaited dispatch run on the caller's thread inside another withBus: its code sees the bus that runs it",
        arguments: 0..<10)
    func awaitedInsideAnotherBus(_ attempt: Int) async {
        let bus = Flux(label: "running.awaited.\(attempt)")
        let sightings = BusSightings()
        let tally = tally(on: bus, sightings)
        await Flask.withBus(Flux(label: "the caller's")) {
            _ = await Flask.apply(TallyMixers.increment, on: bus)
        }
        #expect(sightings["mixer"] === bus)
        #expect(tally.state.count == 1)
    }

    @MainActor
    @Test("a main-actor reaction sees its bus")
    func mainActorReaction() async {
        let bus = Flux(label: "running.main")
        let sightings = BusSightings()
        let tally = tally(on: bus, sightings)
        let screen = Screen()
        let reactor = Flask.reactor(attachedTo: screen, mixing: tally)
        reactor.mainActorHandler = { _, _ in sightings.note("main actor") }
        Flask.substances(reactTo: TallyMixers.increment, on: bus)
        await bus.flushToMainActor()
        #expect(sightings["main actor"] === bus)
        withExtendedLifetime(reactor) {}
    }
}

@MainActor private final class Screen {}

private final class Noting: FluxMiddleware {
    let sightings: BusSightings
    init(_ sightings: BusSightings) { self.sightings = sightings }
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        sightings.note("middleware")
        return .pass
    }
}
