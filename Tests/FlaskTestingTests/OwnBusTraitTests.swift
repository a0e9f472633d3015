import FlaskLocking
import FlaskTesting
import FluxBus
import Reactors
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

/// What the tests below saw inside the code their bus ran.
private final class Seen: Sendable {
    let tests = LockedValue<[String?]>([])
    let buses = LockedValue<[Flux]>([])

    func note() {
        let name = Test.current?.name
        let bus = Flux.current
        tests.withLock { $0.append(name) }
        buses.withLock { $0.append(bus) }
    }
}

@Suite("A bus per test: what its bus runs belongs to the test", .ownBus)
struct OwnBusWorkTests {
    @Test("a handler and a mixer body run on the test's bus see the test (Issue.record is attributed) and its bus")
    func handlerSeesTheTest() async {
        let seen = Seen()
        let counter = ReactiveSubstance<CounterState, CounterMixers>(name: "counter") { define in
            define(mix: .increment) { counter, _, react, _ in
                seen.note()
                counter.prop.counter += 1
                react()
            }
        }
        let owner = Owner()
        counter.bind(ClosureObserver { seen.note() })
        // A plain dispatch runs on the bus's thread, not the test's: the case that was lost.
        for _ in 0..<3 { Flux.current.dispatch(CounterMixers.increment) }
        await Flux.current.flush()
        let name = Test.current?.name
        #expect(seen.tests.withLock { $0 }.count == 6)
        #expect(seen.tests.withLock { $0 }.allSatisfy { $0 == name }, "the bus's work saw the test")
        #expect(seen.buses.withLock { $0 }.allSatisfy { $0 === Flux.current }, "the bus's work saw its bus")
        withExtendedLifetime(owner) {}
    }

    @Test(
        "reactors attached in one test are not detached by purgeFlasks in another: purgeFlasks acts on the current bus")
    func purgeIsPerBus() async {
        let other = Flux(label: "another test's bus")
        let mine = Substance<CounterState>()
        let theirs = Substance<CounterState>(bus: other)
        let owner = Owner()
        let myReactor = ReactorManager.shared.reactor(attachedTo: owner, mixing: [mine])
        let theirReactor = ReactorManager.shared.reactor(attachedTo: owner, mixing: [theirs])
        ReactorManager.shared.removeAll(on: Flux.current)
        #expect(myReactor.isDetached)
        #expect(!theirReactor.isDetached, "another bus's reactor was detached")
        theirReactor.detach()
    }
}

/// An observer that calls `body` at each commit (on the bus).
private final class ClosureObserver: SubstanceObserver {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    func didCommit(_ commit: Commit) { body() }
}

private final class Owner: Sendable {}
