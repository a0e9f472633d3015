import FlaskLocking

/// The observers of named mixers. Confined to the bus: it is read while draining and changed only
/// by exclusive-lane tasks, so it needs no lock on the dispatch path.
///
/// All its mutable state is ``BusConfined`` (the table, the cache, each mixer's observer list and
/// each observer's held owner); every access happens on the bus, one item at a time, checked in
/// debug builds.
final class FluxObserverRegistry: Sendable {
    /// A class, not a struct: reading a struct's weak field out of the array copied the struct,
    /// and copying a weak reference costs runtime calls on every dispatch.
    /// Built on the caller's thread, then moved to the bus; the weak owner is written once, in
    /// `init`, and the held owner is `BusConfined`.
    final class Entry: Sendable {
        let id: UInt64
        weak let owner: (any AnyObject & Sendable)?
        let handler: @Sendable (AnyObject, FluxEvent) -> Void
        /// The owner as the bus holds it (see ``FluxOwnerHolds``).
        let heldOwner: BusConfined<FluxHeldOwner>

        init(
            id: UInt64, owner: any AnyObject & Sendable, on bus: Flux,
            handler: @escaping @Sendable (AnyObject, FluxEvent) -> Void
        ) {
            self.id = id
            self.owner = owner
            self.handler = handler
            self.heldOwner = BusConfined(FluxHeldOwner(), on: bus, "an observer's held owner")
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

    /// The number of live observers of a mixer.
    func count(for name: FluxMixerName) -> Int {
        guard let observers = byName.value[name] else { return 0 }
        return observers.liveCount
    }
}
