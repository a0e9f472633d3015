import FluxBus

/// The observers bound to a substance, in binding order, in storage of their own: a delivery reads
/// them in place through ``elements`` without retaining an array's buffer (an atomic increment
/// and decrement per commit). Confined to the bus: changed only by exclusive-lane tasks, never
/// while a delivery reads it; debug builds check both.
///
/// The bus's observer registry keeps each mixer's observers the same way (`FluxBus`). The few
/// lines are not shared: a generic list of that module, used here, is reached through calls rather
/// than direct loads.
///
/// `@unchecked Sendable`: see above; its storage is touched only on the bus.
final class BoundObserverList: @unchecked Sendable {
    private struct Storage {
        /// The first of `count` initialized observers.
        var elements: UnsafeMutablePointer<BoundObserver>
        var count = 0
        var capacity: Int
        /// Whether a delivery is reading the list in place (checked in debug builds only).
        var isReading = false
    }

    @exclusivity(unchecked) private var storage: BusConfined<Storage>

    init(on bus: Flux) {
        let capacity = 4
        storage = BusConfined(
            Storage(elements: .allocate(capacity: capacity), capacity: capacity), on: bus,
            "a substance's bound observers")
    }

    deinit {
        // No other thread can reach the list any more.
        storage.unchecked.elements.deinitialize(count: storage.unchecked.count)
        storage.unchecked.elements.deallocate()
    }

    var count: Int { storage.value.count }

    /// The first of ``count`` observers, for a delivery to read in place between
    /// ``beginReading()`` and ``endReading()``; the list must not change meanwhile.
    var elements: UnsafeMutablePointer<BoundObserver> { storage.value.elements }

    /// Marks the start of a delivery that reads the list in place (checked in debug builds).
    @inline(__always)
    func beginReading() {
        #if DEBUG
            storage.value.isReading = true
        #endif
    }

    /// Marks the end of the delivery that ``beginReading()`` started.
    @inline(__always)
    func endReading() {
        #if DEBUG
            storage.value.isReading = false
        #endif
    }

    /// Traps, in debug builds, if the list changes while a delivery reads it.
    @inline(__always)
    private func assertNotReading() {
        #if DEBUG
            precondition(!storage.value.isReading, "a substance's bound observers changed while a commit was delivered")
        #endif
    }

    subscript(index: Int) -> BoundObserver {
        get {
            precondition(index >= 0 && index < storage.value.count, "bound observer index out of range")
            return storage.value.elements[index]
        }
        set {
            assertNotReading()
            precondition(index >= 0 && index < storage.value.count, "bound observer index out of range")
            storage.value.elements[index] = newValue
        }
    }

    func append(_ observer: BoundObserver) {
        assertNotReading()
        var list = storage.value
        if list.count == list.capacity {
            let grown = UnsafeMutablePointer<BoundObserver>.allocate(capacity: list.capacity * 2)
            grown.moveInitialize(from: list.elements, count: list.count)
            list.elements.deallocate()
            list.elements = grown
            list.capacity *= 2
        }
        (list.elements + list.count).initialize(to: observer)
        list.count += 1
        storage.value = list
    }

    /// Drops the observers that were unbound, keeping the order of the others.
    func removeUnbound() {
        assertNotReading()
        let elements = storage.value.elements
        var kept = 0
        for index in 0..<storage.value.count {
            if elements[index].binding == nil {
                (elements + index).deinitialize(count: 1)
            } else {
                if kept != index { (elements + kept).moveInitialize(from: elements + index, count: 1) }
                kept += 1
            }
        }
        storage.value.count = kept
    }
}

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
        !filtersByKey || interest.intersects(changes.entries)
    }
}

/// A bound observer in a box of its own: a delivery can then call it borrowed, without retaining
/// and releasing it (the list of bound observers changes only between work items).
final class ObserverBinding: Sendable {
    let observer: any SubstanceObserver
    /// Whether the observer keeps the changes it receives on the bus (a reactor: its reactions
    /// cannot leave their handler). Others may keep them or hand them to another thread, so their
    /// changes are marked escaped before they see them.
    let keepsChangesOnBus: Bool

    init(_ observer: any SubstanceObserver) {
        self.observer = observer
        self.keepsChangesOnBus = observer is any ChangesStayOnBus
    }
}

/// A substance observer whose use of the changes it receives ends on the bus, within the delivery:
/// what lets its substance refill them for a later commit (see `Substance.recycle`).
package protocol ChangesStayOnBus: SubstanceObserver {}
