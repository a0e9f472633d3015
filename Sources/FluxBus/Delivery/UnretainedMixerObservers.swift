import FlaskLocking
import Synchronization

// The bus's observers of named mixers as a dispatch reads them: each mixer's list in manual memory,
// read in place with each entry borrowed, and the cache that finds a list by the name's bits, its
// targets unretained. Scenario S1 (every dispatch looks its mixer up and calls its observer) is
// what this saves on. Invariants, written once here: the lists and the cache change only between
// work items (checked in debug builds); the registry's `byName` table keeps every list the cache
// points to, and clears the cache whenever it drops one. And the holds (`FluxOwnerHolds`, at the
// end) that let a delivery use an observer's owner unretained while the bus holds it.

extension FluxObserverRegistry {
    /// Calls every live observer of the event's mixer, in registration order, and forgets
    /// observers whose owner has gone. Returns how many observers were called.
    @discardableResult @inline(__always)
    func deliver(_ event: FluxEvent) -> Int {
        let observers: Unretained<Observers>
        if let cached = cache.value.target(for: event.mixer) {
            observers = cached
        } else {
            guard let found = byName.value[event.mixer] else { return 0 }
            observers = Unretained(found)
            cache.value.insert(found, for: event.mixer)
        }
        // Handlers never change the registry synchronously (changes are exclusive-lane tasks), so
        // the observers stay alive while they run: the byName table keeps them.
        let (called, sawGone) = observers.withObject { $0.deliver(event, holds: holds) }
        if sawGone {
            // Held strongly: forgetting the last observer drops the list from `byName`.
            let observers = observers.withObject { $0 }
            observers.removeAll { $0.owner == nil }
            removeIfEmpty(observers, for: event.mixer)
        }
        return called
    }

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

/// The weakly held objects (observers' owners, the layers above's) that the bus delivered to in the
/// work items it is running, kept alive until it lets go of them all at once: before a task, after
/// every 128 items, at the end of each batch.
///
/// A weakly held object costs two atomic operations on its side table per use (the weak load, and
/// the release after it, on every delivery). Once held here, an observer remembers
/// it in a ``FluxHeldOwner`` with the ``epoch`` it was held in, and uses it unretained for as long
/// as the epoch has not changed: one load and one comparison a delivery. Letting go changes the
/// epoch first, so a remembered reference is never used after it was let go.
///
/// The price is lifetime: an object whose last other reference goes while the bus holds it is
/// deinitialized a little later, on the bus, when the bus lets go (at most 128 work items, and
/// always before a task such as the one that resumes `Flux.flush()`).
///
/// Its mutable state, the held objects and the epoch, is touched only by work items on the bus,
/// which run one at a time: the objects are ``BusConfined``; the epoch, an atomic so that it is
/// read with one load, is read through ``object(in:)``, which checks in debug builds that the bus
/// is current, and changed only next to the held objects.
final class FluxOwnerHolds: Sendable {
    /// Changes whenever the held objects are let go. A reference remembered with an older epoch
    /// may be gone. Only the bus touches it: relaxed ordering is all it needs. Read it through
    /// ``object(in:)``, or, where a call would cost too much (a delivery to each of many
    /// receivers), right after a check of the bus, as `held.epoch == epoch.load(ordering: .relaxed)`.
    let epoch = Atomic<UInt64>(1)
    private let objects: BusConfined<[AnyObject]>
    /// What to wake when the bus lets go (see ``wakeWhenLettingGo(_:)``).
    private let wakes: BusConfined<[any FluxDeferredWake]>
    #if DEBUG
        @usableFromInline let drainer: FluxDrainer
    #endif

    /// How many work items may run between two lettings go.
    static let itemsPerEpoch = 128

    init(on drainer: FluxDrainer) {
        objects = BusConfined([], on: drainer, "FluxOwnerHolds.objects")
        wakes = BusConfined([], on: drainer, "FluxOwnerHolds.wakes")
        #if DEBUG
            self.drainer = drainer
        #endif
    }

    /// The object `held` remembers, if it is still held: it may then be used unretained until the
    /// bus lets go. On the bus only (checked in debug builds).
    // Inlined into the observers' deliveries: one load and one comparison.
    @inline(__always)
    func object(in held: FluxHeldOwner) -> Unretained<AnyObject>? {
        #if DEBUG
            if !drainer.isCurrent { drainer.trapOffBus("FluxOwnerHolds.epoch") }
        #endif
        return held.epoch == epoch.load(ordering: .relaxed) ? held.object : nil
    }

    /// Keeps `object` alive until the epoch changes, remembered in `held`. Consumed: the caller's
    /// reference (the one a weak load just made) becomes the hold, rather than a second one taken
    /// and the first released (on an object with weak references, both are the runtime's slow path).
    func hold(_ object: consuming AnyObject, in held: inout FluxHeldOwner) {
        held = FluxHeldOwner(object: Unretained(object), epoch: epoch.load(ordering: .relaxed))
        objects.value.append(object)
    }

    /// Wakes `wake` when the bus next lets go: at the end of the batch it is running, after at
    /// most 128 work items, before a task. A consumer of what the bus produces, woken then rather
    /// than at each item, takes a batch at a time; it waits at most until the bus lets go.
    func wakeWhenLettingGo(_ wake: any FluxDeferredWake) {
        wakes.value.append(wake)
    }

    /// Lets go of every held object (their deinitializers may run now, on the bus), and wakes what
    /// waited for it.
    @inline(__always)
    func releaseAll() {
        if !objects.value.isEmpty { releaseHeld() }
        if !wakes.value.isEmpty { wakeAll() }
    }

    private func wakeAll() {
        var waking: [any FluxDeferredWake] = []
        swap(&waking, &wakes.value)
        for wake in waking { wake.wake() }
        // Emptied one by one, keeping the buffer: a batch has a wake or two, and
        // `removeAll(keepingCapacity:)` costs a generic `replaceSubrange` (scenario S1a, a batch
        // per dispatch).
        while waking.popLast() != nil {}
        if wakes.value.isEmpty { wakes.value = waking }
    }

    private func releaseHeld() {
        // The epoch changes before anything is released: a deinitializer that reaches a delivery
        // must not find a remembered reference valid. The list is swapped out first, so that such
        // a delivery may hold again while this one releases.
        epoch.store(epoch.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        var released: [AnyObject] = []
        swap(&released, &objects.value)
        while released.popLast() != nil {}  // see wakeAll()
        if objects.value.isEmpty { objects.value = released }
    }
}

/// An object as an observer remembers it once the bus's holds keep it (see ``FluxOwnerHolds``):
/// `object` may be used, unretained, while the holds' epoch is `epoch`, the one it was held in
/// (``FluxOwnerHolds/object(in:)`` tells).
struct FluxHeldOwner {
    let object: Unretained<AnyObject>?
    let epoch: UInt64

    /// Nothing held yet (epochs start at one).
    init() {
        self.init(object: nil, epoch: 0)
    }

    init(object: Unretained<AnyObject>?, epoch: UInt64) {
        self.object = object
        self.epoch = epoch
    }
}
