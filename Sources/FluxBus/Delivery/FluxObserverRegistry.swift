/// The observers of named mixers. Confined to the bus: it is read while draining and changed only
/// by exclusive-lane tasks, so it needs no lock on the dispatch path.
///
/// All its mutable state is ``BusConfined`` (the table, the cache, each mixer's observer list and
/// each observer's held owner); every access happens on the bus, one item at a time, checked in
/// debug builds. A dispatch's delivery, which reads the lists and the cache unretained, is in
/// UnretainedMixerObservers.swift, beside the invariants that make it right.
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

    let byName: BusConfined<[FluxMixerName: Observers]>
    private let drainer: FluxDrainer
    /// The bus's holds, which keep the owners delivered to alive for a while (see ``FluxOwnerHolds``).
    let holds: FluxOwnerHolds
    /// Recently dispatched names' observers, found without hashing the name; cleared whenever a
    /// name's observers leave `byName`.
    let cache: BusConfined<FluxMixerCache<Observers>>

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

    func removeIfEmpty(_ observers: Observers, for name: FluxMixerName) {
        guard observers.isEmpty else { return }
        byName.value[name] = nil
        cache.value.removeAll()
    }

    /// The number of live observers of a mixer.
    func count(for name: FluxMixerName) -> Int {
        guard let observers = byName.value[name] else { return 0 }
        return observers.liveCount
    }
}
