import FlaskLocking
import FluxBus

/// A state's keys by the bits of their `String` value, looked up by `reaction.on(key)` on every
/// reaction without hashing or comparing strings.
///
/// A key of up to 15 UTF-8 bytes is stored inline in its `String`, so two such strings with the
/// same bits have the same contents; a longer key's bits include the address of its storage, which
/// the table keeps alive, so equal bits mean the same storage. A lookup therefore never finds a wrong
/// entry; it may miss (a long key built at run time, a platform where `String` is not two words),
/// and the caller then compares strings.
///
/// Built once per state type and never changed, so any thread may read it.
struct KeyTable: Sendable {
    private struct Slot {
        let bits: (UInt64, UInt64)
        let entry: Int32
    }

    /// Open addressing, a power of two at most half full; empty slots have entry -1.
    private let slots: [Slot]
    private let shift: UInt64
    /// The plan's keys, kept alive so that the addresses in long keys' bits stay theirs.
    private let keys: [String]

    init(keys: [String]) {
        self.keys = keys
        var capacity = 4
        while capacity < keys.count * 2 { capacity *= 2 }
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        var slots = Array(repeating: Slot(bits: (0, 0), entry: -1), count: capacity)
        for (entry, key) in keys.enumerated() {
            guard let bits = stringWords(key) else { continue }
            var index = KeyTable.index(of: bits, shift: shift)
            while slots[index].entry >= 0 { index = (index + 1) & (capacity - 1) }
            slots[index] = Slot(bits: bits, entry: Int32(entry))
        }
        self.slots = slots
    }

    /// The entry of `key`, or nil when the table does not know these bits.
    @inline(__always)
    func entry(forKey key: String) -> Int32? {
        guard let bits = stringWords(key) else { return nil }
        var index = KeyTable.index(of: bits, shift: shift)
        while true {
            // In bounds (masked to the table's count, a power of two); the subscript checks it
            // anyway: unchecked, it saved too little to keep (docs/performance.md, "What each
            // unsafe primitive saves").
            let slot = slots[index]
            if slot.entry < 0 { return nil }
            if slot.bits == bits { return slot.entry }
            index = (index &+ 1) & (slots.count &- 1)
        }
    }

    @inline(__always)
    private static func index(of bits: (UInt64, UInt64), shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) &>> shift)
    }
}
