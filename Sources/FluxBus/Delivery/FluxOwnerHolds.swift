import FlaskLocking
import Synchronization

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
