import Dispatch
import FlaskLocking
import FlaskTestSupport
import FluxBus
import Reactors
import Substances
import Testing

/// `attachReactor(to:mixing:)` calls `flaskReactions(reaction:)` in the isolation it was called
/// from: on the bus from nonisolated code, on the main actor from the main actor (an isolated
/// conformance included), on an actor from that actor; in commit order in every case.
@Suite("Where a FlaskReactor's reactions run")
struct ReactionIsolationTests {
    @Test("attached from nonisolated code: on the bus, before the next work item")
    func nonisolatedOnTheBus() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let screen = BusScreen(bus: bus)
        ReactorManager().attachReactor(to: screen, mixing: [substance])
        for _ in 0..<3 { bus.dispatch(name(.increment)) }
        await bus.flush()
        #expect(screen.seen.all == [1, 2, 3])
        #expect(screen.onBus.all == [true, true, true])
    }

    @MainActor
    @Test("attached from the main actor, with a main-actor conformance: on the main actor, in order")
    func mainActorConformance() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let screen = MainActorScreen()
        let manager = ReactorManager()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            screen.done = done
            manager.attachReactor(to: screen, mixing: [substance])
            for _ in 0..<20 { bus.dispatch(name(.increment)) }
            // An exclusive mix: its lock stays held until the main actor releases it.
            _ = bus.lock(withMixer: name(.asyncAction), payload: ["value": 7])
            bus.dispatch(name(.increment))
        }
        #expect(screen.counters == Array(1...21))
        #expect(screen.results == [7])
        await bus.flush()
        #expect(bus.openLocks.isEmpty)
    }

    @Test("attached from an actor: on that actor, in order")
    func onAnActor() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let screen = await attachOnTestActor(mixing: substance)
        for _ in 0..<50 { bus.dispatch(name(.increment)) }
        await bus.flush()
        let seen = await screen.counters(count: 50)
        #expect(seen == Array(1...50))
    }

    @Test("attached from an actor: reactions waiting for the actor do not keep a released owner, nor reach it")
    func actorOwnerReleasedWhileQueued() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let freed = LockedValue(false)
        let delivered = Recorder<Int>()
        let reactor = await attachHeldScreen(mixing: substance, freed: freed, delivered: delivered)
        // The actor is kept busy while the bus sends it 100 reactions, then the owner is released
        // (on the actor, where it lives) before any of them ran.
        let gate = DispatchSemaphore(value: 0)
        let started = Recorder<Bool>()
        let busy = Task { @TestActor in
            started.append(true)
            gate.wait()
            heldScreen = nil
        }
        // Dispatched once the actor is busy: every reaction then waits behind the task.
        await started.waitForCount(1)
        for _ in 0..<100 { bus.dispatch(name(.increment)) }
        await bus.flush()
        gate.signal()
        await busy.value
        await Task { @TestActor in }.value
        #expect(freed.withLock { $0 }, "the waiting reactions do not hold the owner")
        #expect(delivered.all.isEmpty)
        #expect(reactor.isDetached)
    }

    @available(*, deprecated, message: "exercises the deprecated delivery: argument")
    @MainActor
    @Test("delivery: .bus, from the main actor: on the bus")
    func explicitBusDelivery() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let screen = BusScreen(bus: bus)
        ReactorManager().attachReactor(to: screen, mixing: [substance], delivery: .bus)
        bus.dispatch(name(.increment))
        await bus.flush()
        #expect(screen.onBus.all == [true])
    }
}

/// A `Sendable` owner that records where its reactions run.
final class BusScreen: FlaskReactor, Sendable {
    let bus: Flux
    let seen = Recorder<Int>()
    let onBus = Recorder<Bool>()

    init(bus: Flux) {
        self.bus = bus
    }

    func flaskReactions(reaction: FlaskReaction) {
        onBus.append(bus.isCurrent)
        reaction.on(AppState.prop.counter) { seen.append($0.newValue() ?? -1) }
    }
}

/// A UI owner: main-actor state, a main-actor conformance.
@MainActor
final class MainActorScreen: @MainActor FlaskReactor {
    var counters: [Int] = []
    var results: [Int] = []
    var done: CheckedContinuation<Void, Never>?

    func flaskReactions(reaction: FlaskReaction) {
        MainActor.assertIsolated()
        reaction.on(AppState.prop.counter) { change in counters.append(change.newValue() ?? -1) }
        reaction.on(AppState.prop.asyncResult) { change in results.append(change.newValue() ?? -1) }
        reaction.onLock?.release()
        if counters.count == 21 {
            done?.resume()
            done = nil
        }
    }
}

@globalActor
actor TestActor {
    static let shared = TestActor()
}

/// Attaches a screen from `TestActor`.
@TestActor
func attachOnTestActor(mixing substance: AppSubstance) -> ActorScreen {
    let screen = ActorScreen()
    ReactorManager().attachReactor(to: screen, mixing: [substance])
    return screen
}

/// An owner isolated to a global actor other than the main one.
@TestActor
final class ActorScreen: @TestActor FlaskReactor {
    private var counters: [Int] = []
    private var waiter: (count: Int, continuation: CheckedContinuation<[Int], Never>)?

    func flaskReactions(reaction: FlaskReaction) {
        TestActor.shared.assertIsolated()
        reaction.on(AppState.prop.counter) { change in counters.append(change.newValue() ?? -1) }
        if let waiter, counters.count >= waiter.count {
            self.waiter = nil
            waiter.continuation.resume(returning: counters)
        }
    }

    /// The counters seen, once there are `count` of them.
    func counters(count: Int) async -> [Int] {
        if counters.count >= count { return counters }
        return await withCheckedContinuation { waiter = (count, $0) }
    }
}

/// The screen `attachHeldScreen` attached, held here so that a test can release it on its actor.
@TestActor var heldScreen: WatchedActorScreen?

/// Attaches a screen from `TestActor` and keeps it in `heldScreen`.
@TestActor
func attachHeldScreen(
    mixing substance: AppSubstance, freed: LockedValue<Bool>, delivered: Recorder<Int>
) -> Reactor<WatchedActorScreen> {
    let screen = WatchedActorScreen(freed: freed, delivered: delivered)
    heldScreen = screen
    return ReactorManager().attachReactor(to: screen, mixing: [substance])
}

/// An owner isolated to `TestActor` that says when it is freed and counts its reactions.
@TestActor
final class WatchedActorScreen: @TestActor FlaskReactor {
    private let freed: LockedValue<Bool>
    private let delivered: Recorder<Int>

    init(freed: LockedValue<Bool>, delivered: Recorder<Int>) {
        self.freed = freed
        self.delivered = delivered
    }

    isolated deinit {
        freed.withLock { $0 = true }
    }

    func flaskReactions(reaction: FlaskReaction) {
        delivered.append(1)
    }
}
