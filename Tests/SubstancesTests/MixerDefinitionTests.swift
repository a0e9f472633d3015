import FlaskTestSupport
import FluxBus
import Synchronization
import Testing

@testable import Substances

enum ShelfMixers: SubstanceMixer, CaseIterable {
    case a, b, c, d, e
}

/// Defines its mixers in the order of `order`, which a test may change after creation, and
/// records which body ran.
final class ShelfSubstance: ReactiveSubstance<CounterState, ShelfMixers>, @unchecked Sendable {
    let ran = Recorder<String>()
    let order = Mutex<[ShelfMixers]>(ShelfMixers.allCases)

    override func defineMixers() {
        for mixer in order.withLock({ $0 }) {
            define(mix: mixer) { _, react, _ in
                self.ran.append("\(mixer)")
                self.prop.counter += 1
                react()
            }
        }
    }
}

/// Defines `.c` twice.
final class TwiceSubstance: ReactiveSubstance<CounterState, ShelfMixers>, @unchecked Sendable {
    let ran = Recorder<String>()

    override func defineMixers() {
        for mixer in [ShelfMixers.a, .c] {
            define(mix: mixer) { _, react, _ in
                self.ran.append("\(mixer)")
                self.prop.counter += 1
                react()
            }
        }
        define(mix: .c) { _, react, _ in
            self.ran.append("c again")
            self.prop.counter += 10
            react()
        }
    }
}

/// A mixer that is a struct with a heap-allocated string, not a plain enumeration.
struct TopicMixer: SubstanceMixer {
    let topic: String
}

/// Defines two topics, each made at run time (so their strings live on the heap).
final class TopicSubstance: ReactiveSubstance<CounterState, TopicMixer>, @unchecked Sendable {
    static func topic(_ index: Int) -> TopicMixer {
        TopicMixer(topic: String(repeating: "topic-\(index)-", count: 8))
    }

    override func defineMixers() {
        define(mix: TopicSubstance.topic(1)) { _, react, _ in
            self.prop.counter += 1
            react()
        }
        define(mix: TopicSubstance.topic(2)) { _, react, _ in
            self.prop.counter += 100
            react()
        }
    }
}

@Suite("Substances: finding a dispatched mixer's body among its definitions")
struct MixerDefinitionTests {
    @Test("each dispatch runs exactly the body of its mixer, among many")
    func rightBody() async {
        let bus = Flux()
        let substance = ShelfSubstance(bus: bus)
        for mixer in [ShelfMixers.e, .a, .c, .b, .d, .c] { bus.dispatch(mixer.busName) }
        await bus.flush()
        #expect(substance.ran.all == ["e", "a", "c", "b", "d", "c"])
        #expect(substance.state.counter == 6)
    }

    @Test("a defineMixers() that defines in another order or leaves mixers out later still runs the right body")
    func orderChanged() async {
        // Bodies are found by their position at registration, checked against the mixer: a
        // mismatch falls back to comparing every definition.
        let bus = Flux()
        let substance = ShelfSubstance(bus: bus)
        substance.order.withLock { $0 = [.e, .d, .c, .b, .a] }
        for mixer in [ShelfMixers.a, .d, .b] { bus.dispatch(mixer.busName) }
        await bus.flush()
        substance.order.withLock { $0 = [.d] }
        for mixer in [ShelfMixers.d, .e] { bus.dispatch(mixer.busName) }
        await bus.flush()
        #expect(substance.ran.all == ["a", "d", "b", "d"])
    }

    @Test("a mixer with stored references (a struct with a heap string) finds its body")
    func mixerWithReferences() async {
        // The registered mixer is kept by the bus's observation and compared on every dispatch.
        let bus = Flux()
        let substance = TopicSubstance(bus: bus)
        for index in [2, 1, 2] { bus.dispatch(TopicSubstance.topic(index).busName) }
        await bus.flush()
        #expect(substance.state.counter == 201)
    }

    @Test("a mixer defined twice runs both bodies, in definition order")
    func definedTwice() async {
        let bus = Flux()
        let substance = TwiceSubstance(bus: bus)
        bus.dispatch(ShelfMixers.c.busName)
        bus.dispatch(ShelfMixers.a.busName)
        await bus.flush()
        #expect(substance.ran.all == ["c", "c again", "a"])
        #expect(substance.state.counter == 12)
        #expect(await bus.observerCount(of: ShelfMixers.c.busName) == 1)
    }

    @Test("defineMixers() runs once at creation and once per dispatch, on the bus: the documented rule")
    func defineMixersRuns() async {
        // The rule the docs state (a body may capture `self` without a cycle because bodies are
        // never stored; so defineMixers() runs again at every dispatch, and must only define).
        let bus = Flux()
        let substance = CountingSubstance(bus: bus)
        #expect(substance.runs.all == [false])
        for _ in 0..<10 { bus.dispatch(ShelfMixers.a.busName) }
        bus.dispatch(ShelfMixers.b.busName)  // not defined: never reaches the substance
        await bus.flush()
        #expect(substance.runs.all.count == 1 + 10)
        #expect(substance.runs.all.dropFirst().allSatisfy { $0 }, "every run after init is on the bus")
        #expect(substance.state.counter == 10)
    }
}

/// Records each run of its `defineMixers()`, and whether it ran on the bus.
final class CountingSubstance: ReactiveSubstance<CounterState, ShelfMixers>, @unchecked Sendable {
    let runs = Recorder<Bool>()

    override func defineMixers() {
        runs.append(bus.isCurrent)
        define(mix: .a) { _, react, _ in
            self.prop.counter += 1
            react()
        }
    }
}
