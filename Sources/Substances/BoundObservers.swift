/// The observers bound to a substance, in binding order, in storage of their own: a delivery reads
/// them in place through ``elements`` without retaining an array's buffer (an atomic increment
/// and decrement per commit). Confined to the bus: changed only by exclusive-lane tasks, never
/// while a delivery reads it.
///
/// The bus's observer registry keeps each mixer's observers the same way (`FluxBus`). The few
/// lines are not shared: a generic list of that module, used here, is reached through calls rather
/// than direct loads (S1 2,321 → 2,487 instructions a dispatch).
///
/// `@unchecked Sendable`: see above; its storage is touched only on the bus.
final class BoundObserverList: @unchecked Sendable {
    /// The first of ``count`` initialized observers.
    @exclusivity(unchecked) private(set) var elements: UnsafeMutablePointer<BoundObserver>
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int

    init() {
        capacity = 4
        elements = .allocate(capacity: capacity)
    }

    deinit {
        elements.deinitialize(count: count)
        elements.deallocate()
    }

    subscript(index: Int) -> BoundObserver {
        get {
            precondition(index >= 0 && index < count, "bound observer index out of range")
            return elements[index]
        }
        set {
            precondition(index >= 0 && index < count, "bound observer index out of range")
            elements[index] = newValue
        }
    }

    func append(_ observer: BoundObserver) {
        if count == capacity {
            let grown = UnsafeMutablePointer<BoundObserver>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: elements, count: count)
            elements.deallocate()
            elements = grown
            capacity *= 2
        }
        (elements + count).initialize(to: observer)
        count += 1
    }

    /// Drops the observers that were unbound, keeping the order of the others.
    func removeUnbound() {
        var kept = 0
        for index in 0..<count {
            if elements[index].binding == nil {
                (elements + index).deinitialize(count: 1)
            } else {
                if kept != index { (elements + kept).moveInitialize(from: elements + index, count: 1) }
                kept += 1
            }
        }
        count = kept
    }
}

/// A bound observer; nil once unbound. Not nested in `Substance<S>`: a type nested in a generic
/// class is itself generic, and its metadata would be looked up at run time on every delivery.
struct BoundObserver: Sendable {
    var binding: ObserverBinding?
    /// Whether the observer receives only the commits that change one of `interest`.
    var filtersByKey = false
    /// The plan entries the observer reacts to, when it filters by key.
    var interest = PlanEntries()

    /// Whether `changes` concern the observer.
    @inline(__always)
    func accepts(_ changes: SubstanceChanges) -> Bool {
        !filtersByKey || interest.intersects(changes.entries)
    }
}

/// A bound observer in a box of its own: a delivery can then call it borrowed, without retaining
/// and releasing it (the list of bound observers changes only between work items).
final class ObserverBinding: Sendable {
    let observer: any SubstanceObserver

    init(_ observer: any SubstanceObserver) {
        self.observer = observer
    }
}
