/// The observers of named mixers. Confined to the bus: it is read while draining and changed only
/// by exclusive-lane tasks, so it needs no lock on the dispatch path.
///
/// `@unchecked Sendable`: all its mutable state is ``BusConfined`` (the table, the cache, each
/// mixer's observer list and each observer's held owner); every access happens on the bus, one
/// item at a time, checked in debug builds.
final class FluxObserverRegistry: @unchecked Sendable {
    /// A class, not a struct: reading a struct's weak field out of the array copied the struct,
    /// and copying a weak reference costs runtime calls on every dispatch.
    ///
    /// `@unchecked Sendable`: built on the caller's thread, then moved to the bus; the weak owner
    /// is written once, in `init` (weak loads are atomic), and the held owner is `BusConfined`.
    final class Entry: @unchecked Sendable {
        let id: UInt64
        weak var owner: AnyObject?
        let handler: @Sendable (AnyObject, FluxEvent) -> Void
        /// The owner as the bus holds it (see ``FluxOwnerHolds``).
        let heldOwner: BusConfined<FluxHeldOwner>

        init(id: UInt64, owner: AnyObject, on bus: Flux, handler: @escaping @Sendable (AnyObject, FluxEvent) -> Void) {
            self.id = id
            self.owner = owner
            self.handler = handler
            self.heldOwner = BusConfined(FluxHeldOwner(), on: bus, "an observer's held owner")
        }
    }

    /// A mixer's observers, in registration order, in storage of their own: a delivery reads them
    /// in place through ``elements`` without retaining an array's buffer (an atomic increment and
    /// decrement per dispatch); they change only between work items. A substance's bound observers
    /// are kept the same way (`UnsafeObserverList`, in `Substances`, which says why the two are not
    /// one generic type).
    final class Observers {
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
    }

    private let byName: BusConfined<[FluxMixerName: Observers]>
    private let drainer: FluxDrainer
    /// The bus's holds, which keep the owners delivered to alive for a while (see ``FluxOwnerHolds``).
    private let holds: FluxOwnerHolds
    /// Recently dispatched names' observers, found without hashing the name; cleared whenever a
    /// name's observers leave `byName`.
    private let cache: BusConfined<FluxMixerCache<Observers>>

    init(holds: FluxOwnerHolds, on drainer: FluxDrainer) {
        self.holds = holds
        self.drainer = drainer
        byName = BusConfined([:], on: drainer, "FluxObserverRegistry.byName")
        cache = BusConfined(FluxMixerCache(), on: drainer, "FluxObserverRegistry.cache")
    }

    func add(_ entry: Entry, for name: FluxMixerName) {
        if let observers = byName.value[name] {
            observers.append(entry)
        } else {
            let observers = Observers(on: drainer)
            observers.append(entry)
            byName.value[name] = observers
        }
    }

    func remove(id: UInt64, for name: FluxMixerName) {
        guard let observers = byName.value[name] else { return }
        observers.removeAll { $0.id == id }
        removeIfEmpty(observers, for: name)
    }

    private func removeIfEmpty(_ observers: Observers, for name: FluxMixerName) {
        guard observers.isEmpty else { return }
        byName.value[name] = nil
        cache.value.removeAll()
    }

    /// Calls every live observer of the event's mixer, in registration order, and forgets
    /// observers whose owner has gone. Returns how many observers were called.
    @discardableResult
    func deliver(_ event: FluxEvent) -> Int {
        let observers: Unmanaged<Observers>
        if let cached = cache.value.target(for: event.mixer) {
            observers = cached
        } else {
            guard let found = byName.value[event.mixer] else { return 0 }
            observers = Unmanaged.passUnretained(found)
            cache.value.insert(found, for: event.mixer)
        }
        var called = 0
        var sawGone = false
        // Handlers never change the registry synchronously (changes are exclusive-lane tasks), so
        // the observers and each entry stay alive while they run: they are borrowed, not retained.
        observers._withUnsafeGuaranteedRef { observers in
            #if DEBUG
                observers.setDelivering(true)
                defer { observers.setDelivering(false) }
            #endif
            let entries = observers.elements
            for index in 0..<observers.count {
                Unmanaged.passUnretained(entries[index])._withUnsafeGuaranteedRef { entry in
                    let owner: Unmanaged<AnyObject>
                    if let held = holds.object(in: entry.heldOwner.value) {
                        owner = held
                    } else if let strong = entry.owner {
                        owner = Unmanaged.passUnretained(strong)
                        // The loaded reference becomes the hold, which keeps the owner alive.
                        holds.hold(consume strong, in: &entry.heldOwner.value)
                    } else {
                        sawGone = true
                        return
                    }
                    owner._withUnsafeGuaranteedRef { entry.handler($0, event) }
                    called += 1
                }
            }
        }
        if sawGone {
            let observers = observers.takeUnretainedValue()
            observers.removeAll { $0.owner == nil }
            removeIfEmpty(observers, for: event.mixer)
        }
        return called
    }

    /// The number of live observers of a mixer.
    func count(for name: FluxMixerName) -> Int {
        guard let observers = byName.value[name] else { return 0 }
        return (0..<observers.count).count { observers.elements[$0].owner != nil }
    }
}
