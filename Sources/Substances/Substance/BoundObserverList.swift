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
