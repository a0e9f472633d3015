import FlaskLocking

// The bus's observers of named mixers as a dispatch reads them: each mixer's list in manual memory,
// read in place with each entry borrowed, and the cache that finds a list by the name's bits, its
// targets unretained. Scenario S1 (every dispatch looks its mixer up and calls its observer) is
// what this saves on. Invariants, written once here: the lists and the cache change only between
// work items (checked in debug builds); the registry's `byName` table keeps every list the cache
// points to, and clears the cache whenever it drops one.

extension FluxObserverRegistry {
    /// A mixer's observers, in registration order, in storage of their own: a delivery reads them
    /// in place through ``elements`` without retaining an array's buffer (an atomic increment and
    /// decrement per dispatch); they change only between work items. The layers above keep their
    /// own receivers the same way, in types of their own.
    final class Observers: Sendable {
        /// The storage, on the bus only (checked in debug builds).
        private struct Storage {
            var elements: UnsafeMutablePointer<Entry>
            var count = 0
            var capacity = 2
            #if DEBUG
                /// Whether a delivery is reading the list: it must not change meanwhile.
                var isDelivering = false
            #endif
        }

        private let storage: BusConfined<Storage>

        init(on drainer: FluxDrainer) {
            storage = BusConfined(Storage(elements: .allocate(capacity: 2)), on: drainer, "a mixer's observers")
        }

        /// The observers, read in place.
        var elements: UnsafeMutablePointer<Entry> { storage.value.elements }
        var count: Int { storage.value.count }

        /// Traps, in debug builds, if the list changes while a delivery reads it in place.
        @inline(__always)
        private func assertNotDelivering() {
            #if DEBUG
                precondition(!storage.value.isDelivering, "a mixer's observers changed while a delivery read them")
            #endif
        }

        #if DEBUG
            /// Marks, in debug builds, that a delivery reads the list in place.
            func setDelivering(_ delivering: Bool) {
                storage.value.isDelivering = delivering
            }
        #endif

        deinit {
            // Whoever frees the list holds the last reference: no other thread can reach it.
            storage.unchecked.elements.deinitialize(count: storage.unchecked.count)
            storage.unchecked.elements.deallocate()
        }

        var isEmpty: Bool { storage.value.count == 0 }

        func append(_ entry: Entry) {
            assertNotDelivering()
            if storage.value.count == storage.value.capacity {
                let capacity = storage.value.capacity
                let grown = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
                grown.moveInitialize(from: storage.value.elements, count: storage.value.count)
                storage.value.elements.deallocate()
                storage.value.elements = grown
                storage.value.capacity = capacity * 2
            }
            (storage.value.elements + storage.value.count).initialize(to: entry)
            storage.value.count += 1
        }

        /// Removes the entries `shouldRemove` picks, keeping the order of the others.
        func removeAll(where shouldRemove: (Entry) -> Bool) {
            assertNotDelivering()
            let elements = storage.value.elements
            var kept = 0
            for index in 0..<storage.value.count {
                if shouldRemove(elements[index]) {
                    (elements + index).deinitialize(count: 1)
                } else {
                    if kept != index { (elements + kept).moveInitialize(from: elements + index, count: 1) }
                    kept += 1
                }
            }
            storage.value.count = kept
        }

        /// Calls every live observer, in registration order, with `event`; an observer whose owner
        /// is gone is skipped (and reported in `sawGone`, for the registry to forget it). Each entry
        /// is borrowed, not retained: the list does not change while it is read (checked in debug
        /// builds). The owner is held by `holds` once per hold, then used unretained.
        @inline(__always)
        func deliver(_ event: FluxEvent, holds: FluxOwnerHolds) -> (called: Int, sawGone: Bool) {
            #if DEBUG
                setDelivering(true)
                defer { setDelivering(false) }
            #endif
            var called = 0
            var sawGone = false
            let entries = elements
            for index in 0..<count {
                Unmanaged.passUnretained(entries[index])._withUnsafeGuaranteedRef { entry in
                    let owner: Unretained<AnyObject>
                    if let held = holds.object(in: entry.heldOwner.value) {
                        owner = held
                    } else if let strong = entry.owner {
                        owner = Unretained(strong)
                        // The loaded reference becomes the hold, which keeps the owner alive.
                        holds.hold(consume strong, in: &entry.heldOwner.value)
                    } else {
                        sawGone = true
                        return
                    }
                    owner.withObject { entry.handler($0, event) }
                    called += 1
                }
            }
            return (called, sawGone)
        }

        /// The number of observers whose owner is alive.
        var liveCount: Int { (0..<count).count { elements[$0].owner != nil } }
    }
}

/// A small cache from mixer names to the registry's observers, looked up without hashing the name.
///
/// Two-way set-associative: a name goes to one of 16 pairs of slots chosen from the two words of
/// its `String` value and its domain, and is found there only if both are identical. With one slot
/// per name, two of a domain's ten mixers landed on one slot more often than not (the domain is
/// an address, which changes from build to build) and took turns missing; a pair keeps both. A
/// name inserted into a full pair takes its first slot and moves the first one's name to the
/// second.
///
/// A slot keeps its name alive (a long string's words include the address of its storage), so a
/// hit is exact; a name spelled by another `String` value of the same text simply misses and is
/// found by the registry's dictionary, as is every name on a platform where a `String` is not two
/// words.
///
/// The layers above find their keys by the same two words
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
        var target: Unretained<Target>?
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
    func target(for name: FluxMixerName) -> Unretained<Target>? {
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
        slots[first] = Slot(key: key, name: name, target: Unretained(target))
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
