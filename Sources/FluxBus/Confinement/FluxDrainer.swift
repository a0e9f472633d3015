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
                + "(mixers, observers, middleware, bus tasks) may touch it", file: file, line: line)
    }

    /// The calling thread starts running the bus's work. One thread at a time: the queue's
    /// `draining` flag, taken under its lock, admits one, and a debug build traps if another is
    /// still in.
    func enter() {
        #if DEBUG
            let previous = thread.exchange(currentThreadIdentity(), ordering: .relaxed)
            precondition(previous == 0, "bus \"\(label)\": a thread entered it while another was still in")
        #else
            thread.store(currentThreadIdentity(), ordering: .relaxed)
        #endif
    }

    /// The calling thread, which entered, stops running the bus's work; before it lets go of the
    /// `draining` flag, so that the next thread to take it finds the bus free (a debug build traps
    /// if another thread is in it).
    func leave() {
        #if DEBUG
            let previous = thread.exchange(0, ordering: .relaxed)
            precondition(
                previous == currentThreadIdentity(), "bus \"\(label)\": left by a thread that was not in it")
        #else
            thread.store(0, ordering: .relaxed)
        #endif
    }
}
