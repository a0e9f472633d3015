import FluxBus

/// A bound observer; nil once unbound. Not nested in `Substance<S>`: a type nested in a generic
/// class is itself generic, and its metadata would be looked up at run time on every delivery.
struct BoundObserver: Sendable {
    var binding: ObserverBinding?
    /// Whether the observer receives only the commits that change one of `interest`.
    var filtersByKey = false
    /// The plan entries the observer reacts to, when it filters by key.
    var interest = PlanEntrySet()

    /// Whether `changes` concern the observer.
    @inline(__always)
    func accepts(_ changes: SubstanceChanges) -> Bool {
        guard filtersByKey else { return true }
        // The masks first, read as plain words: the lists are compared (and copied) only when a
        // shared bit may stand for different entries (beyond the 64th).
        let changed = changes.entries.mask
        if interest.mask & changed == 0 { return false }
        if interest.isExactInMask && changes.entries.isExactInMask { return true }
        return interest.sharesAnEntry(with: changes.entries)
    }
}
