import Dispatch
import FlaskLocking
import FlaskTestSupport
import FluxBus
import Substances
import Testing

@testable import Reactors

@Suite("Reactors: reactions, attachment and disposal")
struct ReactorTests {
    @Test("on(key) fires only for changed keys, with StateProp, strings, and typed key paths")
    func onKeys() async {
        let bus = Flux()
        let manager = ReactorManager()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let seen = Recorder<String>()
        let reactor = manager.reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            reaction.on(AppState.prop.counter) { change in seen.append("counter \(change.newValue() as Int? ?? -1)") }
            reaction.on(AppState.prop.text) { _ in seen.append("text") }
            reaction.on("info.counter") { change in seen.append("info.counter \(change.oldValue() as Int? ?? -1)") }
            reaction.on(\AppState.info.counter) { change in seen.append("typed \(change.oldValue)->\(change.newValue)")
            }
            reaction.on(\AppState.info.label) { _ in seen.append("typed label") }
        }
        reactor.mix(substance) {
            $0.prop.counter = 3
            $0.prop.info.counter = 9
        }.react()
        await bus.flush()
        #expect(Set(seen.all) == ["counter 3", "info.counter 0", "typed 0->9"])
    }

    @Test("changes a reaction hands to another thread keep their values while later commits go on")
    func changesKeptElsewhereAreNotRefilled() async {
        // A commit's changes object is refilled by a later commit only when it never left the bus
        // and nobody holds it: here every reaction's changes are read again on another queue, long
        // after later commits. (A reaction itself cannot cross: it is not `Sendable`.)
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let reader = DispatchQueue(label: "reader")
        let group = DispatchGroup()
        let mismatches = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            let changes = reaction.changes
            let expected = changes.change("counter")?.newValue() as Int?
            group.enter()
            reader.async {
                let seen = changes.change("counter")?.newValue() as Int?
                if seen != expected {
                    mismatches.append("\(String(describing: expected)) read as \(String(describing: seen))")
                }
                group.leave()
            }
        }
        for value in 1...2_000 { reactor.mix(substance) { $0.prop.counter = value }.react() }
        await bus.flush()
        await withCheckedContinuation { continuation in group.notify(queue: reader) { continuation.resume() } }
        #expect(mismatches.all.isEmpty, "\(mismatches.all.count) mismatches, first \(mismatches.all.prefix(3))")
        #expect(substance.state.counter == 2_000)
    }

    struct RenamedState: State {
        var title = ""
        var count = 0
        enum CodingKeys: String, CodingKey {
            case title = "t"
            case count
        }
    }

    @Test("a state with coding keys: its keys are the coding keys, and a property's other name is reported")
    func renamedKeys() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let substance = Substance<RenamedState>(bus: bus)
        let owner = TestOwner()
        let fired = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            reaction.on("title") { _ in fired.append("title") }
            reaction.on("t") { _ in fired.append("t") }
            reaction.on("nosuch") { _ in fired.append("nosuch") }
            reaction.on(\RenamedState.title) { _ in fired.append("key path") }
        }
        reactor.mix(substance) { $0.prop.title = "x" }.react()
        await bus.flush()
        #expect(fired.all == ["t", "key path"])
        #expect(reports.all.map(\.code) == [.unknownKey, .unknownKey])
        #expect(reports.all.map(\.message).joined().contains("no key \"title\""))
        #expect(reports.all.map(\.message).joined().contains("no key \"nosuch\""))
    }

    struct RenamedOptionalState: State {
        struct User: Codable, Equatable, Sendable {
            var name = ""
        }
        var title = ""
        // Nil in the default state, so not encoded there: its coding key is not seen.
        var user: User?
        enum CodingKeys: String, CodingKey {
            case title = "t"
            case user = "u"
        }
        init() {}
        // Nothing here decodes a state: the package must not run it to learn the keys (a decoder
        // of the user's own may trap on values it does not expect, as this one does on any).
        init(from decoder: any Decoder) throws { fatalError("decoded") }
    }

    @Test("a state with coding keys and an optional nil by default: its key fires and is not reported as unknown")
    func renamedOptionalKeys() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let substance = Substance<RenamedOptionalState>(bus: bus)
        let owner = TestOwner()
        let fired = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            reaction.on("u") { _ in fired.append("u") }
            reaction.on("u.name") { _ in fired.append("u.name") }
            reaction.on("t") { _ in fired.append("t") }
        }
        reactor.mix(substance) { $0.prop.user = RenamedOptionalState.User(name: "n") }.react()
        await bus.flush()
        #expect(fired.all == ["u", "u.name"])
        // The key `u` was reported as unknown (it is not encoded while nil). Which key the
        // optional is coded under cannot be seen without running the type's own `init(from:)`,
        // so no first part is reported on such a state.
        #expect(reports.all.isEmpty, "\(reports.all.map(\.message))")
    }

    @Test("a key the state does not have is reported with the key and the state type, no crash")
    func unknownKey() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            reaction.on("no.such.key") { _ in Issue.record("must not fire") }
            reaction.on("counter") { _ in }
        }
        let handlerLine = #line - 3
        for _ in 0..<3 { reactor.mix(substance) { $0.prop.counter += 1 }.react() }
        await bus.flush()
        // Once, though the handler ran three times.
        #expect(reports.all.map(\.code) == [.unknownKey])
        #expect(reports.all.first?.message.contains("no.such.key") == true)
        #expect(reports.all.first?.message.contains("ReactorTests.swift:\(handlerLine)") == true)
        #expect(reports.all.first?.message.contains("AppState") == true)
    }

    @Test("a reactor over two state types: a key of the other state is no mistake, a key of none is")
    func unknownKeyOverTwoStates() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let app = Substance<AppState>(bus: bus)
        let nines = Substance<NinesState>(bus: bus)
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [app, nines])
        reactor.handler = { _, reaction in
            reaction.on(AppState.prop.text) { _ in }  // NinesState has no "text": not reported
            reaction.on("aPropertyWithALongName") { _ in }  // AppState has none: not reported
            reaction.on("txet") { _ in }  // no state has it: reported once
        }
        reactor.mix(app) { $0.prop.counter += 1 }.react()
        reactor.mix(nines) { $0.prop.s0.a += 1 }.react()
        await bus.flush()
        #expect(reports.all.map(\.code) == [.unknownKey])
        #expect(reports.all.allSatisfy { $0.message.contains("txet") })
        // A reactor over one substance still reports a key of another state type.
        let single = ReactorManager().reactor(attachedTo: owner, mixing: [app])
        single.handler = { _, reaction in reaction.on("aPropertyWithALongName") { _ in } }
        single.mix(app) { $0.prop.counter += 1 }.react()
        await bus.flush()
        #expect(reports.all.count == 2)
        #expect(reports.all.last?.message.contains("aPropertyWithALongName") == true)
        // Another pair of state types is another domain, not the first one's: "text" is AppState's,
        // and neither NinesState nor LabelState has it.
        let labels = Substance<LabelState>(bus: bus)
        let other = ReactorManager().reactor(attachedTo: owner, mixing: [nines, labels])
        other.handler = { _, reaction in
            reaction.on("label") { _ in }  // LabelState's: not reported
            reaction.on("text") { _ in }  // no state of this reactor has it: reported
        }
        other.mix(nines) { $0.prop.s0.a += 1 }.react()
        await bus.flush()
        #expect(reports.all.count == 3)
        #expect(reports.all.last?.message.contains("\"text\"") == true)
    }

    @Test("a reactor bound to two substances tells them apart with at()")
    func twoSubstances() async {
        let bus = Flux()
        let first = Substance<AppState>(bus: bus)
        let second = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let seen = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [first, second])
        reactor.handler = { _, reaction in
            reaction.at(first)?.on("counter") { _ in seen.append("first") }
            reaction.at(second)?.on("counter") { _ in seen.append("second") }
        }
        reactor.mix(second) { $0.prop.counter = 1 }.react()
        reactor.mix(first) { $0.prop.counter = 1 }.react()
        await bus.flush()
        #expect(seen.all == ["second", "first"])
    }

    @Test("the FlaskReactor protocol receives reactions in a method")
    func flaskReactorProtocol() async {
        final class Screen: FlaskReactor, Sendable {
            let seen = Recorder<Int>()
            func flaskReactions(reaction: FlaskReaction) {
                reaction.on(AppState.prop.counter) { seen.append($0.newValue() ?? -1) }
            }
        }
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let screen = Screen()
        let manager = ReactorManager()
        manager.attachReactor(to: screen, mixing: [substance])
        bus.dispatch(name(.increment))
        bus.dispatch(name(.increment))
        await bus.flush()
        #expect(screen.seen.all == [1, 2])
    }

    @Test("an owner that goes away: its reactor detaches at the next reaction, or on purge, and is freed")
    func ownerDisposal() async {
        let bus = Flux()
        let manager = ReactorManager()
        let substance = AppSubstance(bus: bus)
        weak var weakReactor: Reactor<TestOwner>?
        weak var weakOwner: TestOwner?
        do {
            let owner = TestOwner()
            weakOwner = owner
            let reactor = manager.reactor(attachedTo: owner, mixing: [substance])
            reactor.handler = { _, _ in }
            weakReactor = reactor
        }
        #expect(weakOwner == nil)
        #expect(manager.count == 1)
        bus.dispatch(name(.increment))
        await bus.flush()
        #expect(manager.count == 0)
        #expect(weakReactor == nil)
        #expect(await substance.observerCount() == 0)

        do {
            let owner = TestOwner()
            _ = manager.reactor(attachedTo: owner, mixing: [substance])
        }
        #expect(manager.count == 1)
        #expect(manager.purge() == 1)
        #expect(manager.reactors.isEmpty)
    }

    @Test(
        "an owner dropped while it reacts: the bus holds it for at most 128 items, and never into a task",
        arguments: [100, 300])
    func ownerHeldByTheBus(dispatches: Int) async {
        let bus = Flux()
        let manager = ReactorManager()
        let substance = AppSubstance(bus: bus)
        let events = Recorder<String>()
        let keeper = LockedValue<WatchedOwner?>(WatchedOwner { events.append("freed") })
        let calls = Recorder<Int>()
        let reactor = manager.reactor(attachedTo: keeper.withLock { $0! }, mixing: [substance])
        reactor.handler = { _, _ in
            calls.append(1)
            keeper.withLock { $0 = nil }  // every reference but the bus's
        }
        // Queued behind a lock, the dispatches and the task run as one batch.
        let lock = bus.lock()
        for _ in 0..<dispatches { bus.dispatch(name(.increment)) }
        bus.perform { events.append("task") }
        lock.release()
        await bus.flush()
        #expect((1...min(dispatches, 128)).contains(calls.count))
        #expect(events.all == ["freed", "task"])
        // Detached at its first reaction after the owner went: one of those, or the next.
        #expect(reactor.isDetached == (calls.count < dispatches))
        bus.dispatch(name(.increment))
        await bus.flush()
        #expect(reactor.isDetached)
        #expect(await substance.observerCount() == 0)
        #expect(substance.state.counter == dispatches + 1)
    }

    @Test("a reactor whose substances mix on different buses is reported, and reacts to each")
    func substancesOnTwoBuses() async {
        let reports = Recorder<FluxDiagnostic.Code>()
        let first = Flux()
        let second = Flux()
        first.diagnostics = { reports.append($0.code) }
        // The first bus stays busy while the second delivers: the reactor's settings, which its
        // first bus takes up, must reach the second bus's deliveries all the same.
        // (It waits at most 30 s, so that a starved run cannot hang; a run that slow checks less.)
        let release = DispatchSemaphore(value: 0)
        let firstBusBlocked = LockedValue(true)
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            first.perform {
                started.resume()
                _ = release.wait(timeout: .now() + 30)
                firstBusBlocked.withLock { $0 = false }
            }
        }
        let one = Substance<AppState>(bus: first)
        let other = Substance<AppState>(bus: second)
        let owner = TestOwner()
        let seen = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [one, other])
        reactor.handler = { _, reaction in
            reaction.on("counter") { change in seen.append(change.newValue() ?? -1) }
        }
        for value in 1...50 {
            reactor.mix(one) { $0.prop.counter = value }.react()
            reactor.mix(other) { $0.prop.counter = 100 + value }.react()
        }
        await second.flush()
        if firstBusBlocked.withLock({ $0 }) { #expect(seen.all == Array(101...150)) }
        release.signal()
        await first.flush()
        #expect(reports.all == [.reactorMisuse])
        #expect(seen.all.filter { $0 <= 50 } == Array(1...50))
        withExtendedLifetime(owner) {}
    }

    @Test("detach and reactors(of:) keep binding balanced")
    func detachBalanced() async {
        let bus = Flux()
        let manager = ReactorManager()
        let substance = AppSubstance(bus: bus)
        let owner = TestOwner()
        _ = manager.reactor(attachedTo: owner, mixing: [substance])
        _ = manager.reactor(attachedTo: owner, mixing: [substance])
        #expect(manager.reactors(of: owner).count == 2)
        #expect(await substance.observerCount() == 2)
        #expect(manager.detach(from: owner) == 2)
        #expect(await substance.observerCount() == 0)
        #expect(manager.detach(from: owner) == 0)
    }

    @Test("dispatch from 8 threads: every reaction is delivered exactly once")
    func eightThreads() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let owner = TestOwner()
        let seen = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in reaction.on("counter") { seen.append($0.newValue() ?? -1) } }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { bus.dispatch(name(.increment)) }
        }
        await bus.flush()
        #expect(substance.state.counter == 8_000)
        #expect(seen.all == Array(1...8_000))
    }

    @available(*, deprecated, message: "exercises the deprecated delivery: argument")
    @Test("main-queue delivery keeps the reactions in order")
    func mainQueueDelivery() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let owner = TestOwner()
        let seen = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance], delivery: .mainQueue)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            reactor.handler = { _, reaction in
                dispatchPrecondition(condition: .onQueue(.main))
                reaction.on("counter") { change in
                    seen.append(change.newValue() ?? -1)
                    if seen.count == 100 { done.resume() }
                }
            }
            for _ in 0..<100 { bus.dispatch(name(.increment)) }
        }
        #expect(seen.all == Array(1...100))
    }

    @Test(
        "the owner of a main-queue or main-actor reactor is not held by the bus: freed once its handler ran",
        arguments: [false, true])
    @available(*, deprecated, message: "exercises the deprecated delivery: argument (main queue)")
    func uiOwnerNotHeld(mainActor: Bool) async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let freed = DispatchSemaphore(value: 0)
        let keeper = LockedValue<WatchedOwner?>(WatchedOwner { freed.signal() })
        let reactor = ReactorManager().reactor(
            attachedTo: keeper.withLock { $0! }, mixing: [substance], delivery: mainActor ? .bus : .mainQueue)
        if mainActor {
            reactor.mainActorHandler = { _, _ in keeper.withLock { $0 = nil } }
        } else {
            reactor.handler = { _, _ in keeper.withLock { $0 = nil } }
        }
        // A mix queued with the dispatch, in the same batch, waits (at most 10 s) for the owner to
        // be freed: the main queue runs the handler, which drops the last reference but the one
        // its call holds. Held by the bus, the owner would outlive the batch.
        let freedInBatch = LockedValue<Bool?>(nil)
        let lock = bus.lock()
        bus.dispatch(name(.increment))
        bus.perform(mix: "check") {
            let result = freed.wait(timeout: .now() + 10)
            freedInBatch.withLock { $0 = result == .success }
        }
        lock.release()
        await bus.flush()
        #expect(freedInBatch.withLock { $0 } == true)
    }

    @Test(
        "reactions queued for the main actor do not keep a released owner: it is freed, gets none of them, and its reactor detaches",
        arguments: [false, true])
    @available(*, deprecated, message: "exercises the deprecated delivery: argument (main queue)")
    @MainActor
    func queuedReactionsDoNotHoldTheOwner(mainActor: Bool) async {
        // Found from outside: each queued reaction held the owner, so an owner its app released
        // stayed alive and received every reaction already sent.
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let freed = LockedValue(false)
        var owner: WatchedOwner? = WatchedOwner { freed.withLock { $0 = true } }
        let delivered = Recorder<Int>()
        let reactor = ReactorManager().reactor(
            attachedTo: owner!, mixing: [substance], delivery: mainActor ? .bus : .mainQueue)
        if mainActor {
            reactor.mainActorHandler = { _, _ in delivered.append(1) }
        } else {
            reactor.handler = { _, _ in delivered.append(1) }
        }
        // The main actor is this test's until it awaits: the reactions wait in the mailbox.
        for _ in 0..<100 { bus.dispatch(name(.increment)) }
        bus.waitForMainLane()
        owner = nil
        #expect(freed.withLock { $0 }, "100 reactions are queued, and none holds the owner")
        await mainActorRanWhatWasSent()
        #expect(delivered.all.isEmpty)
        #expect(reactor.isDetached)
    }

    @Test("flushToMainActor() returns once the main-actor reactions to what was dispatched before were delivered")
    @MainActor
    func mainActorReactionsInATest() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let owner = TestOwner()
        let delivered = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.mainActorHandler = { _, reaction in
            reaction.on("counter") { change in delivered.append(change.newValue() ?? -1) }
        }
        for _ in 0..<500 { bus.dispatch(name(.increment)) }
        await bus.flushToMainActor()
        #expect(delivered.all == Array(1...500))
    }

    @Test("a replaced handler takes over at the next commit, a removed one stops, and the old one is freed")
    func handlerReplaced() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let seen = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        weak var weakCapture: TestOwner?
        do {
            let capture = TestOwner()
            weakCapture = capture
            reactor.handler = { _, _ in withExtendedLifetime(capture) { seen.append("first") } }
        }
        reactor.mix(substance) { $0.prop.counter = 1 }.react()
        await bus.flush()
        reactor.handler = { _, _ in seen.append("second") }
        reactor.mix(substance) { $0.prop.counter = 2 }.react()
        await bus.flush()
        #expect(weakCapture == nil)
        reactor.handler = nil
        reactor.mix(substance) { $0.prop.counter = 3 }.react()
        await bus.flush()
        #expect(seen.all == ["first", "second"])
        #expect(reactor.handler == nil)
    }

    @Test("what handlers and chain steps capture is freed once their reactor is detached or the chain has run")
    func capturedObjectsFreed() async {
        final class Canary: Sendable {}
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        weak var weakHandlerCanary: Canary?
        weak var weakChainCanary: Canary?
        weak var weakDroppedCanary: Canary?
        weak var weakCompletionCanary: Canary?
        weak var weakAbortedCanary: Canary?
        let owner = TestOwner()
        do {
            let handlerCanary = Canary()
            let chainCanary = Canary()
            let droppedCanary = Canary()
            weakHandlerCanary = handlerCanary
            weakChainCanary = chainCanary
            weakDroppedCanary = droppedCanary
            let completionCanary = Canary()
            weakCompletionCanary = completionCanary
            let reactor = Reactor(owner: owner, mixing: [substance])
            reactor.handler = { _, _ in withExtendedLifetime(handlerCanary) {} }
            reactor.mix(substance) { _ in withExtendedLifetime(chainCanary) {} }.react()
            _ = reactor.mix(substance) { _ in withExtendedLifetime(droppedCanary) {} }
            reactor.mix(substance) { _ in }.react(origin: nil, then: { withExtendedLifetime(completionCanary) {} })
            // An aborted chain lets go of its steps at once, even while the chain is kept.
            let aborted: ChainReaction = {
                let abortedCanary = Canary()
                weakAbortedCanary = abortedCanary
                return reactor.mix(substance) { _ in withExtendedLifetime(abortedCanary) {} }
            }()
            aborted.abort()
            await bus.flush()
            #expect(weakAbortedCanary == nil)
            withExtendedLifetime(aborted) {}
            reactor.detach()
        }
        await bus.flush()
        #expect(weakHandlerCanary == nil)
        #expect(weakChainCanary == nil)
        #expect(weakDroppedCanary == nil)
        #expect(weakCompletionCanary == nil)
        withExtendedLifetime(owner) {}
    }

    @Test(
        "a substance nobody references is freed with its reactor, even when no reaction comes to notice the owner is gone"
    )
    func substanceAndReactorFreed() async {
        let bus = Flux()
        let manager = ReactorManager()
        weak var weakSubstance: Substance<AppState>?
        weak var weakReactor: Reactor<TestOwner>?
        // The bus waits while both go, in whatever order (the reactor looks at its owner when
        // its last substance has gone, on the bus).
        var gate: BusGate?
        do {
            let owner = TestOwner()
            let substance = Substance<AppState>(bus: bus)
            weakSubstance = substance
            let reactor = manager.reactor(attachedTo: owner, mixing: [substance])
            reactor.handler = { _, _ in }
            weakReactor = reactor
            #expect(reactor.substances.count == 1)
            await bus.flush()
            gate = BusGate(holding: bus)
            gate?.waitUntilHeld()
        }
        gate?.open()
        await bus.flush()
        #expect(weakSubstance == nil, "the reactor does not keep its substance alive")
        #expect(weakReactor == nil, "no purge needed: its last substance going detached it")
        #expect(manager.count == 0)
        #expect(manager.purge() == 0)
    }

    @Test(
        "a reactor whose owner and substances have all gone is freed with what its handler captures, whichever went first",
        arguments: [true, false])
    func reactorFreedOnceEverythingIsGone(ownerFirst: Bool) async {
        // Found from outside: with both gone no reaction ever came, so the reactor, its handler's
        // captures and the bus it holds (a test's own bus) stayed until a purge.
        let manager = ReactorManager()
        weak var weakReactor: Reactor<TestOwner>?
        weak var weakCaptured: TestOwner?
        weak var weakSubstance: Substance<AppState>?
        let bus = Flux()
        do {
            var owner: TestOwner? = TestOwner()
            var substance: Substance<AppState>? = Substance<AppState>(bus: bus)
            weakSubstance = substance
            let captured = TestOwner()
            weakCaptured = captured
            let reactor = manager.reactor(attachedTo: owner!, mixing: [substance!])
            reactor.handler = { _, _ in withExtendedLifetime(captured) {} }
            weakReactor = reactor
            ChainReaction().mix(substance!) { $0.prop.counter += 1 }.react()
            await bus.flush()
            // The bus waits while both go (the reactor looks at its owner when its last substance
            // has gone, on the bus).
            let gate = BusGate(holding: bus)
            gate.waitUntilHeld()
            if ownerFirst {
                owner = nil
                substance = nil
            } else {
                substance = nil
                owner = nil
            }
            #expect(owner == nil && substance == nil)
            gate.open()
        }
        await bus.flush()
        #expect(weakSubstance == nil)
        #expect(weakReactor == nil)
        #expect(weakCaptured == nil)
        #expect(manager.count == 0)
    }

    @Test("an owner that detaches its reactors in its own deinit detaches them")
    func detachFromDeinit() async {
        // Found in review: in an owner's deinit, weak references to it already read nil, so
        // `detach(from: self)` found none of its reactors (and the facade reported misuse).
        final class DetachingOwner: Sendable {
            let manager: ReactorManager
            let detached: Recorder<Int>
            init(manager: ReactorManager, detached: Recorder<Int>) {
                self.manager = manager
                self.detached = detached
            }
            deinit { detached.append(manager.detach(from: self)) }
        }
        let manager = ReactorManager()
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let detached = Recorder<Int>()
        weak var weakReactor: Reactor<DetachingOwner>?
        do {
            let owner = DetachingOwner(manager: manager, detached: detached)
            let reactor = manager.reactor(attachedTo: owner, mixing: [substance])
            reactor.handler = { _, _ in }
            weakReactor = reactor
            await bus.flush()
        }
        #expect(detached.all == [1])
        await bus.flush()
        #expect(weakReactor == nil)
        #expect(manager.count == 0)
    }

    // On the main actor: the test resumes once the mailbox's batch (which holds the job that
    // detached, and the reactor with it) has ended, not on another thread while it runs.
    @MainActor
    @Test("a main-actor reactor whose owner and substance have gone is detached, its owner looked at on the main actor")
    func mainActorReactorFreedOnceEverythingIsGone() async {
        let manager = ReactorManager()
        let bus = Flux()
        weak var weakReactor: Reactor<TestOwner>?
        var gate: BusGate?
        do {
            let owner = TestOwner()
            let substance = Substance<AppState>(bus: bus)
            let reactor = manager.reactor(attachedTo: owner, mixing: [substance])
            reactor.mainActorHandler = { _, _ in }
            weakReactor = reactor
            await bus.flush()
            gate = BusGate(holding: bus)
            gate?.waitUntilHeld()
        }
        gate?.open()
        await bus.flush()
        await bus.flushToMainActor()
        #expect(weakReactor == nil)
        #expect(manager.count == 0)
    }

    @Test("a purge that frees a chain's substance, its reactor's route with it, does not wait for itself")
    func purgeFreeingARouteDoesNotDeadlock() async {
        // Found in review: a purge let go of an interrupted batch's items that had run under the
        // bus's queue lock; a chain step there may hold the last reference to its substance,
        // whose reactor's route then enqueues an upkeep task, which takes that lock.
        let bus = Flux()
        let manager = ReactorManager()
        let owner = TestOwner()
        var substance: Substance<AppState>? = Substance<AppState>(bus: bus)
        let reactor = manager.reactor(attachedTo: owner, mixing: [substance!])
        reactor.handler = { _, _ in }
        await bus.flush()
        // One batch: the chain (which holds the substance), a task that takes a lock (which
        // interrupts the batch and suspends it, run items included), and one more item.
        let gate = BusGate(holding: bus)
        gate.waitUntilHeld()
        ChainReaction().mix(substance!) { $0.prop.counter += 1 }.react()
        substance = nil
        #expect(substance == nil)
        let locks = Recorder<FluxLock>()
        bus.perform { locks.append(bus.lock()) }
        bus.perform {}
        gate.open()
        await locks.waitForCount(1)
        #expect(bus.purge() == 1)
        locks.all[0].release()
        await bus.flush()
        withExtendedLifetime(owner) {
            #expect(reactor.isDetached == false, "its owner lives")
        }
        manager.removeAll()
    }

    @Test("a reactor whose owner goes long after its last substance is swept when attaching doubles the count")
    func reactorOfAGoneOwnerSweptWhenAttaching() async {
        let manager = ReactorManager()
        let bus = Flux()
        weak var weakReactor: Reactor<TestOwner>?
        var owner: TestOwner? = TestOwner()
        do {
            let substance = Substance<AppState>(bus: bus)
            let reactor = manager.reactor(attachedTo: owner!, mixing: [substance])
            reactor.handler = { _, _ in }
            weakReactor = reactor
        }
        await bus.flush()
        // Its substance went while its owner lived: it stays, for the owner.
        #expect(weakReactor != nil)
        owner = nil
        #expect(owner == nil)
        await bus.flush()
        // Nothing will deliver to it now; the next sweep finds it.
        #expect(weakReactor != nil)
        let kept = Substance<AppState>(bus: bus)
        let owners = (1..<ReactorManager.firstSweep).map { _ in TestOwner() }
        // The owners live through the sweep (a release build may let an array go after its last
        // use, here the argument of the last attachment).
        withExtendedLifetime(owners) {
            for owner in owners.dropLast() { _ = manager.reactor(attachedTo: owner, mixing: [kept]) }
            #expect(weakReactor != nil, "no sweep before the count reaches the first sweep's")
            _ = manager.reactor(attachedTo: owners.last!, mixing: [kept])
            #expect(weakReactor == nil)
            #expect(manager.count == ReactorManager.firstSweep - 1)
        }
        manager.removeAll()
        await bus.flush()
    }

    @Test("on(key) fires for exactly the changed keys and their parents, in commits of one to eight of 91 keys")
    func onKeysOfWideCommits() async {
        // 91 plan entries and a long key: entries 64 and up share a bit of the changes' entry mask
        // with lower ones, and a commit of several leaves and their parents lists more entries
        // than fit inline.
        let bus = Flux()
        let substance = Substance<NinesState>(bus: bus)
        let owner = TestOwner()
        var random = SeededRandom(seed: 0x5EED_0071)
        let fired = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        let keys = NinesState.allKeys
        reactor.handler = { _, reaction in
            for key in keys { reaction.on(key) { _ in fired.append(key) } }
        }
        for round in 1...24 {
            let leaves = Array(NinesState.leaves.keys.sorted().shuffled(using: &random).prefix(1 + round % 8))
            reactor.mix(substance) { substance in
                let paths = NinesState.leaves
                for leaf in leaves { substance.prop[keyPath: paths[leaf]!] += round }
            }.react()
            await bus.flush()
            let parents = leaves.compactMap { $0.split(separator: ".").count > 1 ? String($0.prefix(2)) : nil }
            #expect(Set(fired.all) == Set(leaves + parents), "round \(round), changed \(leaves)")
            #expect(fired.all.count == Set(leaves + parents).count, "round \(round): a key fired twice")
            fired.removeAll()
        }
    }
}

private struct LabelState: State {
    var label = ""
}
