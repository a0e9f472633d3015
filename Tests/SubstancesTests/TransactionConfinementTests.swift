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

    @Test("on the bus the same calls run a transaction")
    func onTheBus() async {
        let substance = Substance<CounterState>(bus: Flux())
        await substance.mixAndWait { $0.prop.counter = 3 }
        #expect(substance.state.counter == 3)
    }
}
