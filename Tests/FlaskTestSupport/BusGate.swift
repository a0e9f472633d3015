import Dispatch
import FluxBus

/// Holds the bus inside a work item (the observer of a mixer, or a task of its own) until the gate
/// opens: what is dispatched meanwhile is queued, not started.
public final class BusGate: Sendable {
    /// The observer's owner, for the gate held at a mixer.
    private final class Holder: Sendable {}
    private let owner = Holder()
    private let held = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)

    /// Holds the bus when `mixer` is mixed.
    public init(on bus: Flux, at mixer: FluxMixerName) {
        bus.observe(mixer, owner: owner) { [held, opened] _, _ in
            held.signal()
            opened.wait()
        }
    }

    /// Holds the bus in a task queued now.
    public init(holding bus: Flux) {
        bus.perform { [held, opened] in
            held.signal()
            opened.wait()
        }
    }

    /// Waits, off the cooperative pool's bookkeeping, until the bus is held at the gate.
    public func waitUntilHeld() { held.wait() }

    /// Lets the bus go on.
    public func open() { opened.signal() }
}
