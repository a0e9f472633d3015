import Dispatch
import FlaskTestSupport
import Testing

@testable import FluxBus

/// The rule the bus's fast path rests on, "touched only on the bus", is checked in debug builds:
/// a confined field or a bus-only call reached from elsewhere traps with a message naming it.
/// (The test build is a debug build; release builds check nothing and pay nothing.)
@Suite("Confinement to the bus is checked in debug builds")
struct ConfinementTests {
    @Test("a confined value is read and written on its bus")
    func onTheBus() async {
        let bus = Flux(label: "confinement.on")
        let tally = Tally(bus: bus)
        for _ in 0..<10 { bus.perform { tally.bump() } }
        let count = await withCheckedContinuation { continuation in
            bus.perform { continuation.resume(returning: tally.count) }
        }
        #expect(count == 10)
    }

    @Test(
        "reading a confined value off its bus traps",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func readOffTheBusTraps() async {
        await #expect(processExitsWith: .failure) {
            let tally = Tally(bus: Flux(label: "confinement.read"))
            _ = tally.count
        }
    }

    @Test(
        "writing a confined value from another bus's work item traps",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func writeOnAnotherBusTraps() async {
        await #expect(processExitsWith: .failure) {
            let tally = Tally(bus: Flux(label: "confinement.mine"))
            let other = Flux(label: "confinement.other")
            let done = DispatchSemaphore(value: 0)
            other.perform {
                tally.bump()
                done.signal()
            }
            done.wait()
        }
    }

    @Test(
        "a bus-only call checks that its bus is current",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func assertIsCurrent() async {
        let bus = Flux(label: "confinement.assert")
        await withCheckedContinuation { continuation in
            bus.perform {
                bus.assertIsCurrent("Tally.bump()")
                continuation.resume()
            }
        }
        await #expect(processExitsWith: .failure) {
            Flux(label: "confinement.assert.off").assertIsCurrent("Tally.bump()")
        }
    }
}

extension ConfinementTests {
    @Test(
        "an owner the bus holds is looked up on the bus only",
        .enabled(if: isDebugBuild, "the check is compiled out of release builds"))
    func heldOwnerOffTheBusTraps() async {
        let bus = Flux(label: "confinement.holds")
        let found = await withCheckedContinuation { continuation in
            bus.perform { continuation.resume(returning: bus.ownerHolds.object(in: FluxHeldOwner()) == nil) }
        }
        #expect(found, "nothing is held yet")
        await #expect(processExitsWith: .failure) {
            _ = Flux(label: "confinement.holds.off").ownerHolds.object(in: FluxHeldOwner())
        }
    }
}

/// A count only the bus's work items touch.
private final class Tally: Sendable {
    // Mutated only on the bus (`BusConfined` checks it in debug builds); never read elsewhere.
    nonisolated(unsafe) private var storage: BusConfined<Int>

    init(bus: Flux) {
        storage = BusConfined(0, on: bus, "Tally.count")
    }

    var count: Int { storage.value }

    func bump() { storage.value += 1 }
}
