/// A small cache from mixer names to the registry's observers, looked up without hashing the name.
///
/// Direct-mapped: a name goes to one of 16 slots chosen from the bits of its `String` value and its
/// domain, and is found there only if those bits are identical. Identical bits are the same string
/// (a slot keeps its name, so the storage a long name's bits point to cannot be freed and reused),
/// so a hit is exact; a name spelled by another `String` value of the same text simply misses and
/// is found by the registry's dictionary. Names dispatched in turn (a substance's mixers, say) each
/// keep their slot.
///
/// Confined to the bus like the registry. The targets are unretained: the registry clears the cache
/// whenever it drops a target.
struct FluxMixerCache<Target: AnyObject> {
    private struct Slot {
        /// The bits of the name (compared), and the name itself (kept alive).
        var key: Key = (0, 0, 0)
        var name: FluxMixerName?
        var target: Unmanaged<Target>?
    }

    private typealias Key = (UInt64, UInt64, UInt)

    private var slots = Array(repeating: Slot(), count: 16)

    /// The target cached for `name`, if any.
    @inline(__always)
    func target(for name: FluxMixerName) -> Unmanaged<Target>? {
        let key = FluxMixerCache.key(of: name)
        return slots.withUnsafeBufferPointer { slots in
            let slot = slots.baseAddress.unsafelyUnwrapped + FluxMixerCache.index(of: key)
            return slot.pointee.key == key ? slot.pointee.target : nil
        }
    }

    mutating func insert(_ target: Target, for name: FluxMixerName) {
        let key = FluxMixerCache.key(of: name)
        slots[FluxMixerCache.index(of: key)] = Slot(key: key, name: name, target: .passUnretained(target))
    }

    mutating func removeAll() {
        for index in slots.indices { slots[index] = Slot() }
    }

    /// The bits of the name's string and the address of its domain type. No string's bits are
    /// all zero, so an empty slot matches nothing.
    @inline(__always)
    private static func key(of name: FluxMixerName) -> Key {
        let domain = name.domain.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
        return withUnsafeBytes(of: name.name) { bytes in
            (bytes.load(as: UInt64.self), bytes.load(fromByteOffset: 8, as: UInt64.self), domain)
        }
    }

    @inline(__always)
    private static func index(of key: Key) -> Int {
        let mixed = (key.0 ^ (key.1 &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(key.2)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 60)
    }
}
