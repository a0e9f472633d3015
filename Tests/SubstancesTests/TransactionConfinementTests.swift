import Dispatch
import FlaskTestSupport
import FluxBus
import Testing

@testable import Substances

/// A substance's transactions are the bus's business: in debug builds, the package's transaction
/// calls reached off the bus trap with the call's name, and so does a mixer definition read off
/// the bus. (User code cannot reach them: they are not public.)
@Suite("Transactions and mixer definitions are confined to the bus")
struct TransactionConfinementTests {
    @Test(
        "beginTransaction() off the bus traps",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func beginOffTheBus() async {
        await #expect(processExitsWith: .failure) {
            Substance<CounterState>(bus: Flux()).beginTransaction()
        }
    }

    @Test(
        "commitTransaction() off the bus traps",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func commitOffTheBus() async {
        await #expect(processExitsWith: .failure) {
            _ = Substance<CounterState>(bus: Flux()).commitTransaction()
        }
    }

    @Test(
        "abortTransaction() off the bus traps",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func abortOffTheBus() async {
        await #expect(processExitsWith: .failure) {
            Substance<CounterState>(bus: Flux()).abortTransaction()
        }
    }

    @Test(
        "a substance's working copy is not reachable from another bus's work item",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func anotherBus() async {
        await #expect(processExitsWith: .failure) {
            let substance = Substance<CounterState>(bus: Flux(label: "mine"))
            let other = Flux(label: "other")
            let done = DispatchSemaphore(value: 0)
            other.perform {
                substance.beginTransaction()
                done.signal()
            }
            done.wait()
        }
    }

    @Test(
        "define(mix:) called off the bus after init traps",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func defineOffTheBus() async {
        await #expect(processExitsWith: .failure) {
            let shelf = ShelfSubstance(bus: Flux())
            shelf.define(mix: .a) { _, react, _ in react() }
        }
    }

    @Test("a reaction that calls defineMixers() itself runs no body inside the delivery, and is reported")
    func defineMixersFromAReaction() async {
        // With `.c` defined twice every definition is compared, so a `defineMixers()` called from
        // an observer of `.c`'s commit reached `.c`'s bodies again, inside that delivery: they
        // committed there, over the state the delivered changes read, and, called at every
        // commit, recursed until the stack overflowed.
        let substance = TwiceSubstance(bus: Flux())
        let misuses = await misusesOfAReactionCallingDefineMixers(of: substance) { bus in
            bus.dispatch(ShelfMixers.c.busName)
        }
        #expect(substance.ran.all == ["c", "c again"])
        #expect(substance.state.counter == 11)
        // Each delivery reached both of `.c`'s definitions, and each refused its body.
        #expect(misuses.count == 4, "one report per definition refused: \(misuses)")
        #expect(misuses.allSatisfy { $0.contains("defineMixers()") })
    }

    @Test("with each mixer defined once, a reaction that calls defineMixers() runs no body, and is reported")
    func defineMixersFromAReactionDefinedOnce() async {
        // Each mixer defined once: a dispatch runs its body by position, and the definitions the
        // reaction's call reached were passed as ones after it, silently.
        let substance = ShelfSubstance(bus: Flux())
        let misuses = await misusesOfAReactionCallingDefineMixers(of: substance) { bus in
            bus.dispatch(ShelfMixers.c.busName)
            bus.dispatch(ShelfMixers.a.busName)
        }
        #expect(substance.ran.all == ["c", "a"])
        #expect(substance.state.counter == 2)
        // Each delivery reached the definition of the mixer being delivered, which refused its body.
        #expect(misuses.count == 2, "one report per delivery: \(misuses)")
        #expect(misuses.allSatisfy { $0.contains("defineMixers() was called while a commit of") })
    }

    @Test("a reaction to a commit no dispatch made (a chain's) that calls defineMixers() is reported as such")
    func defineMixersFromAChainReaction() async {
        // A chain step commits and delivers as below, outside any dispatch's run: each `define`
        // the reaction's call reached was reported as one called outside `defineMixers()`.
        let substance = ShelfSubstance(bus: Flux())
        let misuses = await misusesOfAReactionCallingDefineMixers(of: substance) { bus in
            bus.perform {
                substance.beginTransaction()
                substance.prop.counter = 5
                if let changes = substance.commitTransaction() { substance.deliver(changes, lock: nil) }
            }
        }
        #expect(substance.ran.all.isEmpty)
        #expect(substance.state.counter == 5)
        #expect(misuses.count == ShelfMixers.allCases.count, "one report per definition reached: \(misuses)")
        #expect(misuses.allSatisfy { $0.contains("defineMixers() was called while its commit was delivered") })
    }

    @Test(
        "defineMixers() called off the bus runs nothing, registers nothing, and is reported",
        .enabled(if: !isDebugBuild, "debug builds trap at its first define (the exit test above)"))
    func defineMixersOffTheBus() async {
        // What a main-actor reaction that calls it does while the bus is idle, in release builds.
        let bus = Flux()
        let misuses = Recorder<String>()
        bus.diagnostics = { if $0.code == .substanceMisuse { misuses.append($0.message) } }
        let substance = ShelfSubstance(bus: bus)
        await bus.flush()
        substance.defineMixers()  // on the test's thread, not the bus
        bus.dispatch(ShelfMixers.a.busName)
        await bus.flush()
        #expect(substance.ran.all == ["a"])
        #expect(substance.state.counter == 1)
        #expect(misuses.all.count == ShelfMixers.allCases.count, "\(misuses.all)")
        #expect(misuses.all.allSatisfy { $0.contains("off the bus") })
    }

    @Test(
        "a transaction begun while its substance delivers traps",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func transactionInDelivery() async {
        // The package's own backstop: no path may begin a transaction inside the delivery of
        // the substance's last commit (it would overwrite the state the changes read).
        await #expect(processExitsWith: .failure) {
            let bus = Flux()
            let substance = TwiceSubstance(bus: bus)
            let observer = CommitClosureObserver { _ in substance.beginTransaction() }
            substance.bind(observer)
            bus.dispatch(ShelfMixers.a.busName)
            await bus.flush()
            withExtendedLifetime(observer) {}
        }
    }

    @Test("a reaction that dispatches the mixer instead runs it after the delivery, as its own work item")
    func dispatchFromAReaction() async {
        let bus = Flux()
        let substance = TwiceSubstance(bus: bus)
        // After `.c`'s first body only: the dispatched `.a` runs after both of `.c`'s bodies.
        let observer = CommitClosureObserver { _ in
            if substance.state.counter == 1 { bus.dispatch(ShelfMixers.a.busName) }
        }
        substance.bind(observer)
        bus.dispatch(ShelfMixers.c.busName)
        await bus.flush()
        await bus.flush()  // and the dispatch made during the first flush's work
        #expect(substance.ran.all == ["c", "c again", "a"])
        #expect(substance.state.counter == 12)
        withExtendedLifetime(observer) {}
    }

    @Test("on the bus the same calls run a transaction")
    func onTheBus() async {
        let substance = Substance<CounterState>(bus: Flux())
        await substance.mixAndWait { $0.prop.counter = 3 }
        #expect(substance.state.counter == 3)
    }
}

/// Binds to `substance` an observer of its commits that calls its `defineMixers()` (the misuse),
/// runs `work` on the substance's bus, waits for the bus, and returns the `substance-misuse`
/// reports it made meanwhile.
private func misusesOfAReactionCallingDefineMixers(
    of substance: ReactiveSubstance<CounterState, ShelfMixers>, during work: (Flux) -> Void
) async -> [String] {
    let bus = substance.bus
    let misuses = Recorder<String>()
    bus.diagnostics = { if $0.code == .substanceMisuse { misuses.append($0.message) } }
    let observer = CommitClosureObserver { _ in substance.defineMixers() }
    substance.bind(observer)
    work(bus)
    await bus.flush()
    withExtendedLifetime(observer) {}
    return misuses.all
}
