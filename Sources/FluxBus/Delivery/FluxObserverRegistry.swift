/// The observers of named mixers. Confined to the bus: it is read while draining and changed only
/// by exclusive-lane tasks, so it needs no lock on the dispatch path.
///
/// `@unchecked Sendable`: its mutable state is ``BusConfined`` (the table and cache), or reached
/// only through it (each mixer's observer list, checked by ``deliver(_:)`` and the exclusive-lane
/// tasks that change it); every access happens on the bus, one item at a time.
final class FluxObserverRegistry: @unchecked Sendable {
    /// A class, not a struct: reading a struct's weak field out of the array copied the struct,
    /// and copying a weak reference costs runtime calls on every dispatch.
    ///
    /// `@unchecked Sendable`: built on the caller's thread, then moved to the bus, which alone reads
    /// the weak owner (written once, in `init`).
    final class Entry: @unchecked Sendable {
        let id: UInt64
        weak var owner: AnyObject?
        let handler: @Sendable (AnyObject, FluxEvent) -> Void
        /// The owner as the bus holds it (see ``FluxOwnerHolds``). Bus-confined: only the registry's
        /// deliveries touch it.
        @exclusivity(unchecked) var heldOwner = FluxHeldOwner()

        init(id: UInt64, owner: AnyObject, handler: @escaping @Sendable (AnyObject, FluxEvent) -> Void) {
            self.id = id
            self.owner = owner
            self.handler = handler
        }
    }

    /// A mixer's observers, in registration order, in storage of their own: a delivery reads them
    /// in place through ``elements`` without retaining an array's buffer (an atomic increment and
    /// decrement per dispatch); they change only between work items. A substance's bound observers
    /// are kept the same way (`BoundObserverList`, in `Substances`, which says why the two are not
    /// one generic type).
    final class Observers {
        @exclusivity(unchecked) private(set) var elements: UnsafeMutablePointer<Entry>
        @exclusivity(unchecked) private(set) var count = 0
        @exclusivity(unchecked) private var capacity = 2
        #if DEBUG
            /// Whether a delivery is reading the list: it must not change meanwhile.
            @exclusivity(unchecked) var isDelivering = false
        #endif

        init() {
            elements = .allocate(capacity: capacity)
        }

        /// Traps, in debug builds, if the list changes while a delivery reads it in place.
        @inline(__always)
        private func assertNotDelivering() {
            #if DEBUG
                precondition(!isDelivering, "a mixer's observers changed while a delivery read them")
            #endif
        }

        deinit {
            elements.deinitialize(count: count)
            elements.deallocate()
        }

        var isEmpty: Bool { count == 0 }

        func append(_ entry: Entry) {
            assertNotDelivering()
            if count == capacity {
                let grown = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
                grown.moveInitialize(from: elements, count: count)
                elements.deallocate()
                elements = grown
                capacity *= 2
            }
            (elements + count).initialize(to: entry)
            count += 1
        }

        /// Removes the entries `shouldRemove` picks, keeping the order of the others.
        func removeAll(where shouldRemove: (Entry) -> Bool) {
            assertNotDelivering()
            var kept = 0
            for index in 0..<count {
                if shouldRemove(elements[index]) {
                    (elements + index).deinitialize(count: 1)
                } else {
                    if kept != index { (elements + kept).moveInitialize(from: elements + index, count: 1) }
                    kept += 1
                }
            }
            count = kept
        }
    }

    @exclusivity(unchecked) private var byName: BusConfined<[FluxMixerName: Observers]>
    /// The bus's holds, which keep the owners delivered to alive for a while (see ``FluxOwnerHolds``).
    private let holds: FluxOwnerHolds
    /// Recently dispatched names' observers, found without hashing the name; cleared whenever a
    /// name's observers leave `byName`.
    @exclusivity(unchecked) private var cache: BusConfined<FluxMixerCache<Observers>>

    init(holds: FluxOwnerHolds, on drainer: FluxDrainer) {
        self.holds = holds
        byName = BusConfined([:], on: drainer, "FluxObserverRegistry.byName")
        cache = BusConfined(FluxMixerCache(), on: drainer, "FluxObserverRegistry.cache")
    }

    func add(_ entry: Entry, for name: FluxMixerName) {
        if let observers = byName.value[name] {
            observers.append(entry)
        } else {
            let observers = Observers()
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
                observers.isDelivering = true
                defer { observers.isDelivering = false }
            #endif
            let entries = observers.elements
            for index in 0..<observers.count {
                Unmanaged.passUnretained(entries[index])._withUnsafeGuaranteedRef { entry in
                    let owner: Unmanaged<AnyObject>
                    if entry.heldOwner.epoch == holds.epoch.pointee, let held = entry.heldOwner.object {
                        owner = held
                    } else if let strong = entry.owner {
                        holds.hold(strong, in: &entry.heldOwner)
                        owner = Unmanaged.passUnretained(strong)
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
