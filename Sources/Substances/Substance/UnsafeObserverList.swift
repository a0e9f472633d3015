import FluxBus

/// The observers bound to a substance, in binding order, in manual memory: a delivery reads them
/// in place and calls each borrowed, without retaining an array's buffer or a binding (an atomic
/// increment and decrement each, per commit). Scenario S3 (a hundred reactors) and S3d (a hundred
/// skipped with one comparison each) are what this saves on: `Benchmarks/scripts/instructions.sh`.
///
/// Invariants, written once here and checked in debug builds:
/// - Confined to the bus: every access goes through `BusConfined` storage.
/// - Changed only between work items (by exclusive-lane tasks), never while ``deliver(_:lock:from:changedMask:everyBinding:)``
///   reads it: a delivery marks the list as read, and a change meanwhile traps.
/// - Each slot holding a binding holds one strong reference to it, taken by ``append(_:)`` and
///   ``replace(at:with:)`` and given back by ``remove(at:)``, ``replace(at:with:)``,
///   ``removeEmptySlots()`` and `deinit`; an empty slot (an unbound observer) has no binding and a
///   mask of zero.
///
/// `@unchecked Sendable`: its storage is touched only on the bus (above).
final class UnsafeObserverList: @unchecked Sendable {
    private struct Slot {
        /// The binding's mask (zero for an empty slot): read beside the reference, so that a
        /// skipped observer costs one load and one comparison.
        var mask: UInt64
        var binding: Unmanaged<ObserverBinding>?
    }

    private struct Storage {
        /// The first of `count` initialized slots.
        var slots: UnsafeMutablePointer<Slot>
        var count = 0
        var capacity: Int
        /// Whether a delivery is reading the list in place (checked in debug builds only).
        var isReading = false
    }

    @exclusivity(unchecked) private var storage: BusConfined<Storage>

    init(on bus: Flux) {
        let capacity = 4
        storage = BusConfined(
            Storage(slots: .allocate(capacity: capacity), capacity: capacity), on: bus, "a substance's bound observers")
    }

    deinit {
        // No other thread can reach the list any more.
        let storage = storage.unchecked
        for index in 0..<storage.count { storage.slots[index].binding?.release() }
        storage.slots.deinitialize(count: storage.count)
        storage.slots.deallocate()
    }

    /// The number of slots, empty ones included.
    var count: Int { storage.value.count }

    /// The binding in slot `index`, nil for an empty slot.
    subscript(index: Int) -> ObserverBinding? {
        checkIndex(index)
        return storage.value.slots[index].binding?.takeUnretainedValue()
    }

    /// Adds `binding` in a new last slot.
    func append(_ binding: ObserverBinding) {
        assertNotReading()
        if storage.value.count == storage.value.capacity {
            let old = storage.value
            let grown = UnsafeMutablePointer<Slot>.allocate(capacity: old.capacity * 2)
            grown.moveInitialize(from: old.slots, count: old.count)
            old.slots.deallocate()
            storage.value.slots = grown
            storage.value.capacity = old.capacity * 2
        }
        (storage.value.slots + storage.value.count).initialize(
            to: Slot(mask: binding.mask, binding: .passRetained(binding)))
        storage.value.count += 1
    }

    /// Puts `binding` in slot `index` in place of the binding there.
    func replace(at index: Int, with binding: ObserverBinding) {
        assertNotReading()
        checkIndex(index)
        let old = storage.value.slots[index].binding
        storage.value.slots[index] = Slot(mask: binding.mask, binding: .passRetained(binding))
        old?.release()
    }

    /// Empties slot `index`: its observer receives nothing from the next delivery on.
    func remove(at index: Int) {
        assertNotReading()
        checkIndex(index)
        let old = storage.value.slots[index].binding
        storage.value.slots[index] = Slot(mask: 0, binding: nil)
        old?.release()
    }

    /// Drops the empty slots, keeping the order of the others.
    func removeEmptySlots() {
        assertNotReading()
        let slots = storage.value.slots
        var kept = 0
        for index in 0..<storage.value.count where slots[index].binding != nil {
            if kept != index { slots[kept] = slots[index] }
            kept += 1
        }
        storage.value.count = kept
    }

    /// Delivers a commit of `substance` to each binding, in binding order, whose mask shares a bit
    /// with `changedMask` (to every binding when `everyBinding`), each borrowed: the list does not
    /// change meanwhile (checked in debug builds).
    @inline(__always)
    func deliver(
        _ changes: SubstanceChanges, lock: FluxLock?, from substance: any AnySubstance, changedMask: UInt64,
        everyBinding: Bool
    ) {
        beginReading()
        let storage = storage.value
        let wanted = everyBinding ? ~0 : changedMask
        for index in 0..<storage.count {
            let slot = storage.slots[index]
            guard slot.mask & wanted != 0, let binding = slot.binding else { continue }
            binding._withUnsafeGuaranteedRef { $0.deliver(changes, lock: lock, from: substance) }
        }
        endReading()
    }

    @inline(__always)
    private func checkIndex(_ index: Int) {
        precondition(index >= 0 && index < storage.value.count, "bound observer index out of range")
    }

    @inline(__always)
    private func beginReading() {
        #if DEBUG
            storage.value.isReading = true
        #endif
    }

    @inline(__always)
    private func endReading() {
        #if DEBUG
            storage.value.isReading = false
        #endif
    }

    /// Traps, in debug builds, if the list changes while a delivery reads it.
    @inline(__always)
    private func assertNotReading() {
        #if DEBUG
            precondition(!storage.value.isReading, "a substance's bound observers changed while a commit was delivered")
        #endif
    }
}
