import FlaskAPI
import FlaskTestSupport
import Foundation
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
