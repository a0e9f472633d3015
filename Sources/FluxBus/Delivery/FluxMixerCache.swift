import FlaskLocking

/// A small cache from mixer names to the registry's observers, looked up without hashing the name.
///
/// Two-way set-associative: a name goes to one of 16 pairs of slots chosen from the two words of
/// its `String` value and its domain, and is found there only if both are identical. With one slot
/// per name, two of a substance's ten mixers landed on one slot more often than not (the domain is
/// an address, which changes from build to build) and took turns missing; a pair keeps both. A
/// name inserted into a full pair takes its first slot and moves the first one's name to the
/// second.
///
/// A slot keeps its name alive (a long string's words include the address of its storage), so a
/// hit is exact; a name spelled by another `String` value of the same text simply misses and is
/// found by the registry's dictionary, as is every name on a platform where a `String` is not two
/// words.
///
/// The reduction plan's `KeyTable` (Substances) finds keys by the same two words
/// (``stringWords(_:)``).
///
/// Confined to the bus like the registry. The targets are unretained: the registry clears the cache
/// whenever it drops a target.
struct FluxMixerCache<Target: AnyObject> {
    private struct Slot {
        /// The bits of the name and its domain's address (compared), and the name itself (kept
        /// alive); no key in an empty slot.
        var key: Key?
        var name: FluxMixerName?
        var target: Unmanaged<Target>?
    }

    private struct Key: Equatable {
        let low: UInt64
        let high: UInt64
        let domain: UInt
    }

    /// Sixteen pairs: slots `2 * set` and `2 * set + 1`.
    private var slots = Array(repeating: Slot(), count: 32)

    /// The target cached for `name`, if any.
    @inline(__always)
    func target(for name: FluxMixerName) -> Unmanaged<Target>? {
        guard let key = FluxMixerCache.key(of: name) else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            let pair = slots.baseAddress.unsafelyUnwrapped + 2 &* FluxMixerCache.set(of: key)
            if pair.pointee.key == key { return pair.pointee.target }
            return (pair + 1).pointee.key == key ? (pair + 1).pointee.target : nil
        }
    }

    mutating func insert(_ target: Target, for name: FluxMixerName) {
        guard let key = FluxMixerCache.key(of: name) else { return }
        let first = 2 * FluxMixerCache.set(of: key)
        if slots[first].key != nil { slots[first + 1] = slots[first] }
        slots[first] = Slot(key: key, name: name, target: .passUnretained(target))
    }

    mutating func removeAll() {
        for index in slots.indices { slots[index] = Slot() }
    }

    /// The two words of the name's string and the address of its domain type; nil where a
    /// `String` is not two words.
    @inline(__always)
    private static func key(of name: FluxMixerName) -> Key? {
        guard let words = stringWords(name.name) else { return nil }
        let domain = name.domain.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
        return Key(low: words.0, high: words.1, domain: domain)
    }

    @inline(__always)
    private static func set(of key: Key) -> Int {
        let mixed = (key.low ^ (key.high &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(key.domain)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 60)
    }
}
