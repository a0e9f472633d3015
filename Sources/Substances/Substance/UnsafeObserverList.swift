import FluxBus

/// The observers bound to a substance, in binding order, in manual memory: a delivery reads them
/// in place and calls each borrowed, without retaining an array's buffer or a binding (an atomic
/// increment and decrement each, per commit). Scenario S3 (a hundred reactors) and S3d (a hundred
/// skipped with one comparison each) are what this saves on: `Benchmarks/scripts/instructions.sh`.
///
/// Invariants, written once here and checked in debug builds:
/// - Confined to the bus: every access goes through `BusConfined` storage.
/// - Changed only between work items (by exclusive-lane tasks), never while ``deliver(_:lock:changedMask:everyBinding:)``
///   reads it: a delivery marks the list as read, and a change meanwhile traps.
/// - The index, when there is one, lists every slot with a binding under each bit of its mask,
///   or under every commit, in slot order; any change to the slots drops it first.
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
        /// The slots by mask bit (see ``SlotIndex``), nil until a delivery to many slots needs it
        /// and after any change to the slots.
        var index: SlotIndex?
    }

    /// The slots by the bits of their masks, in slot order: for a commit that changed one entry
    /// (one bit), the slots that want it are those of its bit and those that want every commit,
    /// found without looking at the others (scenario S3d: a hundred reactors, ten on each key).
    /// In manual memory, read without retaining an array's buffer; rebuilt by the first delivery
    /// after the slots changed (binding a thousand reactors rebuilds it once, not a thousand times).
    private struct SlotIndex {
        /// `starts[bit]..<starts[bit + 1]` are the positions in `slotsByBit` of the slots whose
        /// mask has `bit` (and is not every bit).
        let starts: UnsafeMutablePointer<Int32>
        let slotsByBit: UnsafeMutablePointer<Int32>
        /// The slots whose mask is every bit, and how many.
        let everyCommit: UnsafeMutablePointer<Int32>
        let everyCommitCount: Int

        init(_ slots: UnsafeMutablePointer<Slot>, count: Int) {
            var counts = [Int32](repeating: 0, count: 65)
            var everyCommitCount = 0
            for index in 0..<count where slots[index].binding != nil {
                let mask = slots[index].mask
                if mask == ~0 { everyCommitCount += 1 } else { Self.forEachBit(of: mask) { counts[$0 + 1] += 1 } }
            }
            starts = .allocate(capacity: 65)
            starts[0] = 0
            for bit in 0..<64 { starts[bit + 1] = starts[bit] + counts[bit + 1] }
            slotsByBit = .allocate(capacity: max(1, Int(starts[64])))
            everyCommit = .allocate(capacity: max(1, everyCommitCount))
            self.everyCommitCount = everyCommitCount
            var filled = [Int32](repeating: 0, count: 64)
            var every = 0
            for index in 0..<count where slots[index].binding != nil {
                let mask = slots[index].mask
                if mask == ~0 {
                    everyCommit[every] = Int32(index)
                    every += 1
                } else {
                    Self.forEachBit(of: mask) { bit in
                        slotsByBit[Int(starts[bit] + filled[bit])] = Int32(index)
                        filled[bit] += 1
                    }
                }
            }
        }

        func deallocate() {
            starts.deallocate()
            slotsByBit.deallocate()
            everyCommit.deallocate()
        }

        private static func forEachBit(of mask: UInt64, _ body: (Int) -> Void) {
            var rest = mask
            while rest != 0 {
                body(rest.trailingZeroBitCount)
                rest &= rest - 1
            }
        }
    }

    private let storage: BusConfined<Storage>

    init(on bus: Flux) {
        let capacity = 4
        storage = BusConfined(
            Storage(slots: .allocate(capacity: capacity), capacity: capacity), on: bus, "a substance's bound observers")
    }

    deinit {
        // No other thread can reach the list any more.
        let storage = storage.unchecked
        storage.index?.deallocate()
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
        dropIndex()
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
        dropIndex()
        checkIndex(index)
        let old = storage.value.slots[index].binding
        storage.value.slots[index] = Slot(mask: binding.mask, binding: .passRetained(binding))
        old?.release()
    }

    /// Empties slot `index`: its observer receives nothing from the next delivery on.
    func remove(at index: Int) {
        assertNotReading()
        dropIndex()
        checkIndex(index)
        let old = storage.value.slots[index].binding
        storage.value.slots[index] = Slot(mask: 0, binding: nil)
        old?.release()
    }

    /// Drops the empty slots, keeping the order of the others.
    func removeEmptySlots() {
        assertNotReading()
        dropIndex()
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
        _ changes: SubstanceChanges, lock: FluxLock?, changedMask: UInt64,
        everyBinding: Bool
    ) {
        beginReading()
        let slots = storage.value.slots
        if !everyBinding, storage.value.count >= Self.indexedCount, changedMask.nonzeroBitCount == 1,
            let wanted = indexedSlots(ofBit: changedMask.trailingZeroBitCount)
        {
            // The slots of the bit and those of every commit, merged in slot order.
            var ofBit = 0
            var every = 0
            while true {
                let next: Int32
                if ofBit < wanted.ofBit.count,
                    every == wanted.everyCommit.count || wanted.ofBit[ofBit] < wanted.everyCommit[every]
                {
                    next = wanted.ofBit[ofBit]
                    ofBit += 1
                } else if every < wanted.everyCommit.count {
                    next = wanted.everyCommit[every]
                    every += 1
                } else {
                    break
                }
                slots[Int(next)].binding.unsafelyUnwrapped._withUnsafeGuaranteedRef {
                    $0.deliver(changes, lock: lock)
                }
            }
        } else {
            let wanted = everyBinding ? ~0 : changedMask
            for index in 0..<storage.value.count {
                let slot = slots[index]
                guard slot.mask & wanted != 0, let binding = slot.binding else { continue }
                binding._withUnsafeGuaranteedRef { $0.deliver(changes, lock: lock) }
            }
        }
        endReading()
    }

    /// From how many slots a commit of one entry finds its observers through the index.
    private static var indexedCount: Int { 16 }

    /// For a commit that changed the entries of one mask bit: the slots of that bit and those of
    /// every commit, from the index (built now if the slots changed since the last one); nil when
    /// they are most of the slots, which a scan then finds as quickly (scenario S3: a hundred
    /// reactors of every commit).
    @inline(never)
    private func indexedSlots(
        ofBit bit: Int
    ) -> (ofBit: UnsafeBufferPointer<Int32>, everyCommit: UnsafeBufferPointer<Int32>)? {
        if storage.value.index == nil {
            storage.value.index = SlotIndex(storage.value.slots, count: storage.value.count)
        }
        // Built just above if it was not there.
        let index = storage.value.index.unsafelyUnwrapped
        let start = Int(index.starts[bit])
        let ofBit = UnsafeBufferPointer(start: index.slotsByBit + start, count: Int(index.starts[bit + 1]) - start)
        guard (ofBit.count + index.everyCommitCount) * 2 < storage.value.count else { return nil }
        return (ofBit, UnsafeBufferPointer(start: index.everyCommit, count: index.everyCommitCount))
    }

    /// Forgets the index: the slots are about to change.
    @inline(__always)
    private func dropIndex() {
        if let index = storage.value.index {
            index.deallocate()
            storage.value.index = nil
        }
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
