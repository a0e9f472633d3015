import Synchronization

/// Which thread drains a bus right now: what ``Flux/isCurrent`` asks, and what the debug checks of
/// ``BusConfined`` fields and bus-only calls compare with. One small object per bus, shared by
/// everything confined to it.
@usableFromInline
final class FluxDrainer: Sendable {
    /// The bus's label, for messages.
    let label: String
    /// The identity of the thread draining the bus, 0 when none does.
    @usableFromInline let thread = Atomic<UInt>(0)

    init(label: String) {
        self.label = label
    }

    /// Whether the calling code runs on this bus, inside a work item.
    @inlinable
    var isCurrent: Bool {
        thread.load(ordering: .relaxed) == currentThreadIdentity()
    }

    @usableFromInline @inline(never)
    func trapOffBus(_ what: StaticString) {
        trapOffBus("\(what)")
    }

    @usableFromInline @inline(never)
    func trapOffBus(_ what: String, file: StaticString = #file, line: UInt = #line) {
        preconditionFailure(
            "\(what) is confined to the bus \"\(label)\" and was reached off it: only its work items "
                + "(mixers, chain steps, reactions on the bus, bus tasks) may touch it", file: file, line: line)
    }

    func enter() {
        thread.store(currentThreadIdentity(), ordering: .relaxed)
    }

    func leave() {
        thread.store(0, ordering: .relaxed)
    }
}
