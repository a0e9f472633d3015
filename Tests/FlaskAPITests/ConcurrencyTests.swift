import FlaskAPI
import FlaskTestSupport
import FlaskTesting
import Foundation
import Observation
import Synchronization
import Testing

private struct TallyState: State {
    var count = 0
    var label = ""
}

private enum TallyMixers: SubstanceMixer {
    case add, refuse
}

private final class Tally: ReactiveSubstance<TallyState, TallyMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .add) { payload, react, _ in
            self.prop.count += payload?["by"] as? Int ?? 1
            react()
        }
        define(mix: .refuse) { _, _, abort in
            self.prop.count = -1
            abort()
        }
    }
}

private enum NobodyMixers: SubstanceMixer { case ping }

@Suite("Swift concurrency: async dispatch, change streams, observation, main actor")
struct ConcurrencyTests {
    @Test("Flask.apply returns once the mix is committed, with what changed, and tells an abort apart")
    func asyncApply() async {
        let tally = Tally()
        let committed = await Flask.apply(TallyMixers.add, payload: ["by": 3])
        #expect(tally.state.count == 3)
        #expect(committed.changes.map(\.keys) == [["count"]])
        #expect(!committed.wasAborted)
        let aborted = await Flask.apply(TallyMixers.refuse)
        #expect(aborted.wasAborted && aborted.changes.isEmpty)
        #expect(tally.state.count == 3)
        #expect(await Flask.apply(NobodyMixers.ping).reachedNobody)
        _ = tally
    }

    @Test("an awaited chain returns each substance's net change")
    func asyncChain() async {
        let a = Substance<TallyState>()
        let b = Substance<TallyState>()
        let outcome = await ChainReaction()
            .mix(a) { $0.prop.count = 1 }
            .mix(b) { $0.prop.label = "b" }
            .mix(a) { $0.prop.count = 0 }
            .reactAndWait()
        #expect(outcome.entries.count == 2)
        #expect(outcome.changes.map(\.keys) == [["label"]])
        #expect(b.state.label == "b")
    }

    @Test("a change stream yields committed changes, filtered by key, and ends when the substance goes away")
    func changeStream() async {
        let bus = Flux()
        var substance: Substance<TallyState>? = Substance<TallyState>(bus: bus)
        let stream = substance!.changes(of: ["label"])
        let typed = substance!.changes(of: \.count)
        let collected = Task {
            var labels: [String] = []
            for await changes in stream { labels.append(changes.change("label")?.newValue() ?? "?") }
            return labels
        }
        let counts = Task {
            var values: [Int] = []
            for await change in typed { values.append(change.newValue) }
            return values
        }
        let target = substance!
        ChainReaction(bus: bus).mix(target) { $0.prop.count = 1 }.react()
        ChainReaction(bus: bus).mix(target) { $0.prop.label = "x" }.react()
        ChainReaction(bus: bus).mix(target) {
            $0.prop.count = 2
            $0.prop.label = "y"
        }.react()
        await bus.flush()
        substance = nil
        _ = consume target
        await bus.flush()
        #expect(await collected.value == ["x", "y"])
        #expect(await counts.value == [1, 2])
    }

    @Test("cancelling the consumer unbinds the stream and never blocks the bus")
    func streamCancellation() async {
        let bus = Flux()
        let substance = Substance<TallyState>(bus: bus)
        let stream = substance.changes(bufferingPolicy: .bufferingNewest(1))
        let consumer = Task { for await _ in stream {} }
        #expect(await substance.observerCount() == 1)
        // A slow (absent) consumer: the bus keeps committing.
        for n in 1...1_000 { ChainReaction(bus: bus).mix(substance) { $0.prop.count = n }.react() }
        await bus.flush()
        #expect(substance.state.count == 1_000)
        consumer.cancel()
        await consumer.value
        #expect(await substance.observerCount() == 0)
    }

    @Test("a consumer running alongside the bus gets every commit once, in order")
    func streamOrder() async {
        let bus = Flux()
        let substance = Substance<TallyState>(bus: bus)
        let stream = substance.changes(of: \.count)
        let consumer = Task {
            var values: [Int] = []
            for await change in stream {
                values.append(change.newValue)
                if change.newValue == 10_000 { break }
            }
            return values
        }
        for n in 1...10_000 { ChainReaction(bus: bus).mix(substance) { $0.prop.count = n }.react() }
        #expect(await consumer.value == Array(1...10_000))
    }

    @Test("breaking out of the loop and dropping the stream unbinds it")
    func streamBreak() async {
        let bus = Flux()
        let substance = Substance<TallyState>(bus: bus)
        var stream: SubstanceChangeStream<SubstanceChanges>? = substance.changes()
        #expect(await substance.observerCount() == 1)
        let consumer = Task { [stream] in
            for await _ in stream! { break }
        }
        ChainReaction(bus: bus).mix(substance) { $0.prop.count = 1 }.react()
        await consumer.value
        stream = nil
        #expect(await substance.observerCount() == 0)
    }

    @Test("buffering policies: the newest or the oldest n are kept while nobody reads")
    func streamBuffering() async {
        let bus = Flux()
        let substance = Substance<TallyState>(bus: bus)
        let newest = substance.changes(of: \.count, bufferingPolicy: .bufferingNewest(3))
        let oldest = substance.changes(of: \.count, bufferingPolicy: .bufferingOldest(3))
        for n in 1...10 { ChainReaction(bus: bus).mix(substance) { $0.prop.count = n }.react() }
        await bus.flush()
        var newestIterator = newest.makeAsyncIterator()
        var oldestIterator = oldest.makeAsyncIterator()
        var kept: [Int] = []
        for _ in 0..<3 { kept.append(await newestIterator.next()?.newValue ?? -1) }
        #expect(kept == [8, 9, 10])
        kept = []
        for _ in 0..<3 { kept.append(await oldestIterator.next()?.newValue ?? -1) }
        #expect(kept == [1, 2, 3])
    }

    @MainActor
    @Test("a main-actor consumer iterates on the main actor")
    func streamOnMainActor() async {
        let bus = Flux()
        let substance = Substance<TallyState>(bus: bus)
        let stream = substance.changes(of: \.count)
        ChainReaction(bus: bus).mix(substance) { $0.prop.count = 7 }.react()
        for await change in stream {
            MainActor.preconditionIsolated()
            #expect(change.newValue == 7)
            break
        }
    }

    @MainActor
    @Test("observation: withObservationTracking fires for the properties read, only when they change")
    func observation() async {
        let bus = Flux()
        let substance = Substance<TallyState>(bus: bus)
        let view = substance.observable()
        let fired = Recorder<String>()
        withObservationTracking {
            _ = view.count
        } onChange: {
            fired.append("count")
        }
        ChainReaction(bus: bus).mix(substance) { $0.prop.label = "only the label" }.react()
        await bus.flush()
        await Task.yield()
        await waitForMainQueue()
        #expect(fired.all.isEmpty)
        #expect(view.state.label == "only the label")
        ChainReaction(bus: bus).mix(substance) { $0.prop.count = 5 }.react()
        await bus.flush()
        await waitForMainQueue()
        #expect(fired.all == ["count"])
        #expect(view.count == 5)
    }

    @MainActor
    @Test("observation: a burst of commits while the main actor is busy arrives as the newest state")
    func observationCoalesces() async {
        let bus = Flux()
        let substance = Substance<TallyState>(bus: bus)
        let view = substance.observable()
        let fired = Recorder<Int>()
        withObservationTracking {
            _ = view.count
        } onChange: {
            fired.append(1)
        }
        for n in 1...1_000 { ChainReaction(bus: bus).mix(substance) { $0.prop.count = n }.react() }
        // The main actor stays busy while the bus commits all of them.
        let committed = DispatchSemaphore(value: 0)
        bus.perform { committed.signal() }
        committed.wait()
        #expect(view.count == 0, "nothing is delivered while the main actor is busy")
        await waitForMainQueue()
        #expect(view.count == 1_000)
        #expect(fired.count == 1)
    }

    @MainActor
    @Test("a main-actor handler receives reactions in order and can release an exclusive mix's lock")
    func mainActorHandler() async {
        @MainActor final class Screen {
            var seen: [Int] = []
        }
        let bus = Flux()
        let tally = Tally(bus: bus)
        let screen = Screen()
        let manager = ReactorManager()
        let reactor = manager.reactor(attachedTo: screen, mixing: [tally])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            reactor.mainActorHandler = { screen, reaction in
                reaction.on(\TallyState.count) { change in
                    screen.seen.append(change.newValue)
                    reaction.onLock?.release()
                    if screen.seen.count == 52 { done.resume() }
                }
            }
            for _ in 0..<50 { bus.dispatch(Flask.mixerName(TallyMixers.add)) }
            _ = bus.lock(withMixer: Flask.mixerName(TallyMixers.add))
            bus.dispatch(Flask.mixerName(TallyMixers.add))
            // Mixes queued behind the exclusive one wait for its lock, released on the main actor.
        }
        await bus.flush()
        #expect(screen.seen == Array(1...52))
        #expect(tally.state.count == 52)
        #expect(bus.openLocks.isEmpty)
    }
}

extension ConcurrencyTests {
    @MainActor
    @Test("a main-actor handler that detaches its reactor gets no reaction sent before it did")
    func mainActorDetachStops() async {
        @MainActor final class Screen {
            var seen = 0
        }
        let bus = Flux()
        let tally = Tally(bus: bus)
        let screen = Screen()
        let reactor = ReactorManager().reactor(attachedTo: screen, mixing: [tally])
        let detacher = reactor
        reactor.mainActorHandler = { screen, _ in
            screen.seen += 1
            if screen.seen == 5 { detacher.detach() }
        }
        await bus.flush()
        // 50 reactions are sent to the main actor before it runs any of them.
        for _ in 0..<50 { bus.dispatch(Flask.mixerName(TallyMixers.add)) }
        await bus.flush()
        await waitForMainQueue()
        #expect(screen.seen == 5)
        #expect(tally.state.count == 50)
    }
}

/// Suspends until the main queue has run what was queued on it before.
@MainActor
func waitForMainQueue() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { continuation.resume() }
    }
}

@Suite("The README's quick start, run")
struct QuickStartTests {
    @MainActor
    @Test("the Redux screen reacts on the main actor, through its main-actor handler")
    func reduxScreen() async {
        let screen = CounterScreen()
        screen.start()
        await Flask.bus.flushToMainActor()
        #expect(screen.label == "1")
        #expect(screen.counter.state.text == "tapped")
        Flask.detachReactor(from: screen)
    }

    @MainActor
    @Test("the seed's spelling of the Redux screen, a main-actor FlaskReactor, reacts on the main actor")
    func seedReduxScreen() async {
        let screen = SeedCounterScreen()
        screen.start()
        await Flask.bus.flushToMainActor()
        #expect(screen.label == "1")
        #expect(screen.counter.state.text == "tapped")
        Flask.detachReactor(from: screen)
    }

    @Test("getting-started's FlaskDictRef sample changes one key, and a reaction on it sees the change")
    func dictionarySample() async {
        let bus = Flux()
        let settings = Substance<SettingsState>(bus: bus)
        let probe = ChangeProbe(settings)
        useLightTheme(settings)
        let mismatch = await probe.mismatch(with: [.change("settings.theme", from: "dark", to: "light")])
        #expect(mismatch == nil)
        #expect(settings.state.settings["font.size"] as? Int == 12)
    }

    @Test("getting-started's chain moves a card between two columns in one commit; a card not there moves nothing")
    func moveCard() async {
        let bus = Flux(label: "move a card")
        let todo = Substance<ColumnState>(bus: bus)
        let done = Substance<ColumnState>(bus: bus)
        await ChainReaction().mix(todo) { $0.prop.cards = [Card(id: 1, title: "write"), Card(id: 2, title: "test")] }
            .reactAndWait()
        let todoProbe = ChangeProbe(todo)
        let doneProbe = ChangeProbe(done)
        move(cardID: 1, from: todo, to: done)
        move(cardID: 1, from: todo, to: done)  // gone from todo: aborted
        await bus.flush()
        #expect(todo.state.cards == [Card(id: 2, title: "test")])
        #expect(done.state.cards == [Card(id: 1, title: "write")])
        let write = Card(id: 1, title: "write")
        let test = Card(id: 2, title: "test")
        let todoMismatch = await todoProbe.mismatch(with: [.change("cards", from: [write, test], to: [test])])
        #expect(todoMismatch == nil, "one commit of todo")
        let doneMismatch = await doneProbe.mismatch(with: [.change("cards", from: [], to: [write])])
        #expect(doneMismatch == nil, "one commit of done")
    }

    @Test("a reactive substance of typed actions only takes NoMixers")
    func noMixers() async {
        await Flask.withBus(Flux(label: "no mixers")) {
            let session = ReactiveSubstance<SessionState, NoMixers>(name: "typed only") { define in
                define(Login.self) { session, login, react, _ in
                    session.prop.user = login.user
                    react()
                }
            }
            await Flask.apply(Login(user: "ada"))
            #expect(session.state.user == "ada")
        }
    }

    @Test("getting-started's reactor over two substances tells which one committed")
    func twoSubstances() async {
        // `session` is the sample's global, on the shared bus: the counter mixes there too, and
        // other tests may log in meanwhile, so the lines are checked for what this test did.
        let totals = Totals()
        let counter = Substance<CounterState>(bus: .shared)
        totals.start(counter: counter)
        await ChainReaction().mix(counter) { $0.prop.counter = 7 }.reactAndWait()
        await Flask.apply(Login(user: "totals-\(UInt64.random(in: 0...UInt64.max))"), on: .shared)
        let lines = totals.lines.withLock { $0 }
        #expect(lines.contains("count: 7"))
        #expect(lines.contains("user changed"))
        #expect(!lines.contains("count: 0"), "a commit of the session is not read as the counter's")
        Flask.detachReactor(from: totals)
        // The handler holds its counter weakly: a counter the app drops goes, its reactor attached.
        weak var dropped: Substance<CounterState>?
        do {
            let other = Substance<CounterState>(bus: .shared)
            totals.start(counter: other)
            dropped = other
        }
        // The reactor's binding, an upkeep on the shared bus, holds its substances while it runs.
        await Flux.shared.flush()
        #expect(dropped == nil)
        Flask.detachReactor(from: totals)
    }

    @Test("concurrency.md's awaited enum mixer carries its payload; without one, the mixer aborts")
    func awaitedEnumMixer() async {
        await Flask.withBus(Flux(label: "awaited enum mixer")) {
            let profile = makeProfile()
            #expect(await rename(to: "Ada"))
            #expect(profile.state.name == "Ada")
            let withoutName = await Flask.apply(ProfileMixers.rename)
            #expect(!withoutName.wasApplied)
            #expect(profile.state.name == "Ada")
        }
    }

    @Test("concurrency.md's key-list stream shows the newest count")
    func keyListStream() async {
        let bus = Flux()
        let counter = Substance<CounterState>(bus: bus)
        let shown = Recorder<Int>()
        let watching = Task { await showLatestCount(of: counter, show: { shown.append($0) }) }
        // The stream is made inside the task: commit until it shows one, then a last value.
        var value = 0
        while shown.all.isEmpty && value < 100_000 {
            value += 1
            await ChainReaction().mix(counter) { [value] in $0.prop.counter = value }.reactAndWait()
            await Task.yield()
        }
        await ChainReaction().mix(counter) { $0.prop.counter = -1 }.reactAndWait()
        var turns = 0
        while shown.all.last != -1 && turns < 1_000_000 {
            turns += 1
            await Task.yield()
        }
        watching.cancel()
        #expect(shown.all.last == -1)
        #expect(shown.all.allSatisfy { $0 == -1 || (1...value).contains($0) })
    }
}
