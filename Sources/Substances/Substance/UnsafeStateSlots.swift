import FlaskLocking
import FluxBus
import Foundation

/// A substance's state in two slots allocated once, which trade places at every commit: a commit
/// publishes its state without copying it, and the reducer compares the old and new states where
/// they lie. `prop` hands out the working slot by address: a `_modify` accessor over a generic
/// stored property allocated and freed its coroutine frame on every use (two mallocs per mixer
/// body; scenario S1).
///
/// Invariants, written once here and checked in debug builds where they can be:
/// - The working slot and the committed slot (as the bus reads it) are touched on the bus only
///   (checked in debug builds by every accessor but `init` and `deinit`, when no other thread can
///   reach them). The pair is not a `BusConfined`: the published slot aliases one of its slots.
/// - The published slot is the committed one as other threads read it: read and swapped only with
///   `lock` held, so a reader copies a state the bus is not overwriting (the bus overwrites the
///   working slot, which was the published one before the last swap, only after that swap).
/// - Each slot holds an initialized `S` from `init` to ``free(_:)``, and is read as the `S` it
///   was made with (the substance's state type: every method is given it).
///
/// Not generic: a field of a generic type in the generic `Substance` had its metadata looked up at
/// run time on every use (scenario S1; figures in docs/history/performance-log.md); its methods are given
/// the state type instead, and the substance frees the slots in its `deinit` (or hands them to
/// changes that still read their new state in one: see `StateChanges`).
@usableFromInline
struct UnsafeStateSlots {
    /// The working slot (what `prop` reads and writes inside a transaction) and the committed one.
    @usableFromInline let pair:
        UnsafeMutablePointer<(working: UnsafeMutableRawPointer, committed: UnsafeMutableRawPointer)>
    /// The committed slot as other threads see it: only with `lock` held.
    private let published: UnsafeMutablePointer<UnsafeMutableRawPointer>
    private let lock: UnsafeMutablePointer<InPlaceLock>
    @usableFromInline let bus: Flux

    init<S: State>(_ initial: S, on bus: Flux) {
        let working = UnsafeMutablePointer<S>.allocate(capacity: 1)
        working.initialize(to: initial)
        let committed = UnsafeMutablePointer<S>.allocate(capacity: 1)
        committed.initialize(to: initial)
        pair = .allocate(capacity: 1)
        pair.initialize(to: (UnsafeMutableRawPointer(working), UnsafeMutableRawPointer(committed)))
        published = .allocate(capacity: 1)
        published.initialize(to: UnsafeMutableRawPointer(committed))
        lock = .allocate(capacity: 1)
        lock.initialize(to: InPlaceLock())
        self.bus = bus
    }

    /// Frees the slots: from the substance's `deinit`, when no other thread can reach them.
    func free<S: State>(_ type: S.Type) {
        for slot in [pair.pointee.working, pair.pointee.committed] {
            slot.assumingMemoryBound(to: S.self).deinitialize(count: 1)
            slot.deallocate()
        }
        pair.deallocate()
        published.deallocate()
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// The working slot, on the bus (`prop`'s address inside a transaction).
    @inlinable @inline(__always)
    func working<S: State>(_ type: S.Type) -> UnsafeMutablePointer<S> {
        bus.assertIsCurrent("a substance's working state")
        return pair.pointee.working.assumingMemoryBound(to: S.self)
    }

    /// The committed state, as the bus reads it (on the bus only).
    @inline(__always)
    func committed<S: State>(_ type: S.Type) -> S {
        bus.assertIsCurrent("a substance's committed state")
        return pair.pointee.committed.assumingMemoryBound(to: S.self).pointee
    }

    /// A copy of the committed state, from any thread.
    func readPublished<S: State>(_ type: S.Type) -> S {
        lock.pointee.withLock { published.pointee.assumingMemoryBound(to: S.self).pointee }
    }

    /// Opens a transaction: the working slot becomes a copy of the committed state (on the bus).
    @inline(__always)
    func beginTransaction<S: State>(_ type: S.Type) {
        bus.assertIsCurrent("a substance's state slots")
        pair.pointee.working.assumingMemoryBound(to: S.self).pointee =
            pair.pointee.committed.assumingMemoryBound(to: S.self).pointee
    }

    /// Makes the working slot the committed one, and publishes it: the previous state, now in the
    /// working slot, stays there until the next transaction overwrites it (on the bus).
    @inline(__always)
    func commit<S: State>(_ type: S.Type) -> (previous: StateSlot, committed: StateSlot) {
        bus.assertIsCurrent("a substance's state slots")
        let committed = pair.pointee.working
        let previous = pair.pointee.committed
        pair.pointee = (previous, committed)
        lock.pointee.withLock { published.pointee = committed }
        return (
            StateSlot(previous.assumingMemoryBound(to: S.self)), StateSlot(committed.assumingMemoryBound(to: S.self))
        )
    }

    /// Discards the working copy (on the bus).
    @inline(__always)
    func abort<S: State>(_ type: S.Type) {
        beginTransaction(S.self)
    }

    /// Sets the state while the substance is made, before anything can observe it.
    func setInitial<S: State>(_ value: S) {
        // Only the substance's `init` calls it, before any other thread can reach the slots.
        pair.pointee.working.assumingMemoryBound(to: S.self).pointee = value
        lock.pointee.withLock { published.pointee.assumingMemoryBound(to: S.self).pointee = value }
    }
}

/// A state in one of its substance's slots, as a commit hands it to the reducer and to the changes
/// it fills: valid until the next transaction of the substance overwrites the slot (the commit's
/// delivery ends before any next transaction starts). Not generic (a generic struct here had its
/// metadata looked up at run time on every commit); each method is given the state type, the one
/// the slot holds.
struct StateSlot {
    private let pointer: UnsafeMutableRawPointer

    @inline(__always)
    init<S: State>(_ pointer: UnsafeMutablePointer<S>) {
        self.pointer = UnsafeMutableRawPointer(pointer)
    }

    /// The state in the slot.
    @inline(__always)
    func value<S: State>(_ type: S.Type) -> S {
        pointer.assumingMemoryBound(to: S.self).pointee
    }

    /// Its bytes, for the reducer to compare where they lie.
    @inline(__always)
    func memory<S: State>(_ type: S.Type) -> StateMemory {
        StateMemory(UnsafePointer(pointer.assumingMemoryBound(to: S.self)))
    }

    /// Calls `body` with two slots holding `first` and `second` (tests and tools reducing two
    /// values of their own).
    static func withSlots<S: State, Result>(
        holding first: inout S, _ second: inout S, _ body: (StateSlot, StateSlot) -> Result
    ) -> Result {
        withUnsafeMutablePointer(to: &first) { first in
            withUnsafeMutablePointer(to: &second) { second in body(StateSlot(first), StateSlot(second)) }
        }
    }

    /// Trades the state in the slot for `other` (no copy: no retains and releases).
    @inline(__always)
    func swapValue<S: State>(with other: inout S) {
        swap(&other, &pointer.assumingMemoryBound(to: S.self).pointee)
    }
}

/// Where `prop` reads and writes go outside a transaction (a misuse, reported): a copy of the
/// committed state, one per thread and state type, which writes change in vain.
///
/// The caller reads or writes through the address after `prop`'s accessor returned, so the copy must
/// outlive the call; one kept per thread is reused by the thread's next misuse (each write is made
/// on the thread that asked, before it asks again), so that writing `prop` in a loop outside a
/// transaction keeps one discarded copy, not one per write. The copy goes with its thread.
final class DiscardedCopy<S: State> {
    private let slot: UnsafeMutablePointer<S>

    private init(_ value: S) {
        slot = .allocate(capacity: 1)
        slot.initialize(to: value)
    }

    deinit {
        slot.deinitialize(count: 1)
        slot.deallocate()
    }

    /// This thread's copy for `S`, now holding `value`.
    static func slot(holding value: S) -> UnsafeMutablePointer<S> {
        let key = "flask.discarded.\(UInt(bitPattern: ObjectIdentifier(S.self)))"
        let dictionary = Thread.current.threadDictionary
        if let copy = dictionary[key] as? DiscardedCopy<S> {
            copy.slot.pointee = value
            return copy.slot
        }
        let copy = DiscardedCopy(value)
        dictionary[key] = copy
        return copy.slot
    }
}
