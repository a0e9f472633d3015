/// The observers of named mixers. Confined to the bus: it is read while draining and changed only
/// by exclusive-lane tasks, so it needs no lock on the dispatch path.
///
/// `@unchecked Sendable`: the bus hands it to its own tasks only; every access happens on the bus's
/// serial executor, one item at a time, so there is never a concurrent access.
final class FluxObserverRegistry: @unchecked Sendable {
    /// A class, not a struct: reading a struct's weak field out of the array copied the struct,
    /// and copying a weak reference costs about a hundred instructions a dispatch.
    ///
    /// `@unchecked Sendable`: built on the caller's thread, then moved to the bus, which alone reads
    /// the weak owner (written once, in `init`).
    final class Entry: @unchecked Sendable {
        let id: UInt64
        weak var owner: AnyObject?
        let handler: @Sendable (AnyObject, FluxEvent) -> Void

        init(id: UInt64, owner: AnyObject, handler: @escaping @Sendable (AnyObject, FluxEvent) -> Void) {
            self.id = id
            self.owner = owner
            self.handler = handler
        }
    }

    final class Observers {
        @exclusivity(unchecked) var entries: [Entry] = []
    }

    @exclusivity(unchecked) private var byName: [FluxMixerName: Observers] = [:]
    /// Recently dispatched names' observers, found without hashing the name; cleared whenever a
    /// name's observers leave `byName`.
    @exclusivity(unchecked) private var cache = FluxMixerCache<Observers>()

    func add(_ entry: Entry, for name: FluxMixerName) {
        if let observers = byName[name] {
            observers.entries.append(entry)
        } else {
            let observers = Observers()
            observers.entries.append(entry)
            byName[name] = observers
        }
    }

    func remove(id: UInt64, for name: FluxMixerName) {
        guard let observers = byName[name] else { return }
        observers.entries.removeAll { $0.id == id }
        removeIfEmpty(observers, for: name)
    }

    private func removeIfEmpty(_ observers: Observers, for name: FluxMixerName) {
        guard observers.entries.isEmpty else { return }
        byName[name] = nil
        cache.removeAll()
    }

    /// Calls every live observer of the event's mixer, in registration order, and forgets
    /// observers whose owner has gone. Returns how many observers were called.
    @discardableResult
    func deliver(_ event: FluxEvent) -> Int {
        let observers: Unmanaged<Observers>
        if let cached = cache.target(for: event.mixer) {
            observers = cached
        } else {
            guard let found = byName[event.mixer] else { return 0 }
            observers = Unmanaged.passUnretained(found)
            cache.insert(found, for: event.mixer)
        }
        var called = 0
        var sawGone = false
        // Handlers never change the registry synchronously (changes are exclusive-lane tasks), so
        // the observers and each entry stay alive while they run: they are borrowed, not retained.
        observers._withUnsafeGuaranteedRef { observers in
            observers.entries.withUnsafeBufferPointer { entries in
                for index in entries.indices {
                    Unmanaged.passUnretained(entries[index])._withUnsafeGuaranteedRef { entry in
                        if let owner = entry.owner {
                            entry.handler(owner, event)
                            called += 1
                        } else {
                            sawGone = true
                        }
                    }
                }
            }
        }
        if sawGone {
            let observers = observers.takeUnretainedValue()
            observers.entries.removeAll { $0.owner == nil }
            removeIfEmpty(observers, for: event.mixer)
        }
        return called
    }

    /// The number of live observers of a mixer.
    func count(for name: FluxMixerName) -> Int {
        byName[name]?.entries.reduce(0) { $0 + ($1.owner == nil ? 0 : 1) } ?? 0
    }
}
