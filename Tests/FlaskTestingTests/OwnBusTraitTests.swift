import FlaskLocking
import FlaskTesting
import FluxBus
import Substances
import Testing

// The `///` sample of `OwnBusTrait`, compiled as it appears there, and run.

enum CounterMixers: SubstanceMixer {
    case increment
}

struct CounterState: State {
    var counter = 0
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

@Suite(.ownBus)
struct CounterTests {
    @Test func counts() async {
        let counter = makeCounter()  // on this test's bus
        await Flux.current.apply(CounterMixers.increment)  // `Flask.apply` with FlaskAPI
        #expect(counter.state.counter == 1)
    }
}

/// The buses the tests below ran on, kept alive so that no identity is reused.
private let busesSeen = LockedValue<[Flux]>([])

@Suite("A bus per test: the ownBus trait", .ownBus)
struct OwnBusTraitTests {
    /// Records the current bus, and says whether another test or case ran on it before.
    private func recordBus() -> Bool {
        let bus = Flux.current
        return busesSeen.withLock { seen in
            defer { seen.append(bus) }
            return !seen.contains { $0 === bus }
        }
    }

    @Test("a test runs on a bus of its own, labeled with the test's name")
    func ownBus() {
        #expect(Flux.current !== Flux.shared)
        #expect(Flux.current.label.contains("labeled with the test's name"))
        #expect(recordBus())
    }

    @Test("each case of a parameterized test runs on a bus of its own, which its substances use", arguments: 1...4)
    func eachCase(increments: Int) async {
        #expect(recordBus())
        let counter = makeCounter()
        #expect(counter.bus === Flux.current)
        for _ in 0..<increments { Flux.current.dispatch(CounterMixers.increment) }
        await Flux.current.flush()
        #expect(counter.state.counter == increments)
    }

    @Suite("nested")
    struct Nested {
        @Test("a nested suite's tests run on buses of their own too")
        func nested() {
            #expect(Flux.current !== Flux.shared)
        }
    }
}
