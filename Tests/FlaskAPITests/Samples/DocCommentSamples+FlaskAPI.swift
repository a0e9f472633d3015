// The `///` samples of Sources/FlaskAPI, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a file of this folder).
// `CounterScreen`, `Subs`, `EnvMixers` and `Feed` are the README samples'; nothing calls this.
import FlaskAPI
import Testing

// Flask
@MainActor
private func useTheFacade(screen: CounterScreen, feed: Feed) {
    let reactor = Flask.reactor(attachedTo: screen, mixing: feed)
    reactor.mainActorHandler = { screen, reaction in
        reaction.on("counter") { change in screen.label = "\(change.newValue() as Int? ?? 0)" }
    }
    Flask.substances(reactTo: EnvMixers.Login, payload: ["username": "foo"])
    reactor.mix(feed) { $0.prop.counter = 10 }.react()
}

// Flask.withBus(_:operation:): a test of its own, run in parallel with the others.
enum CounterMixers: SubstanceMixer {
    case increment
}

/// A counter on the current bus.
func makeCounter() -> ReactiveSubstance<CounterState, CounterMixers> {
    ReactiveSubstance<CounterState, CounterMixers>(name: "counter") { define in
        define(mix: .increment) { counter, _, react, _ in
            counter.prop.counter += 1
            react()
        }
    }
}

@Test func counterCounts() async {
    await Flask.withBus(Flux()) {
        let counter = makeCounter()  // on the test's bus
        await Flask.apply(CounterMixers.increment)  // dispatched on it
        #expect(counter.state.counter == 1)
    }
}
