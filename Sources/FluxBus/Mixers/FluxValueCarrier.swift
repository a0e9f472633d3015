import FlaskLocking
import Synchronization

// The values dispatched with mixers, in carriers (`FluxValueCarrier`, `FluxCarried`), and the
// carriers of values without bytes kept for the life of the process (`FluxEmptyValues`): the
// references and the table that let a dispatch of a value of any type carry it with one object,
// or none (scenarios S1t, S1dt, S1td), and how an event reads them. Their invariants are written
// beside each.

// How an event reads what it carries: its `work` is, by its `kind`, a lock, a carrier or (a
// value without bytes) nothing, the carrier then kept for its domain type. Read without checks,
// beside the carriers whose invariants make them right; debug builds trap on another class.
extension FluxEvent {
    /// The lock dispatched together with the mixer (an *exclusive* mix, see
    /// ``Flux/lock(withMixer:payload:autorelease:fileID:line:function:)``). The receiver hands it on so that
    /// whoever finishes the work can release it later (a lock taken with `autorelease: false`: with
    /// `true`, the bus releases it once its observers have returned).
    // Inlinable: a receiver reads it through a pointer to the event it borrows, and a call would
    // copy the event (retaining its name, payload and reference) to pass it.
    @inlinable @inline(__always)
    public var lock: FluxLock? {
        switch kind {
        case .exclusiveMixer: uncheckedCast(uncheckedUnwrap(work), to: FluxLock.self)
        case .valueMixer: uncheckedUnwrap(carrier).lock
        default: nil
        }
    }

    /// The value dispatched with the mixer (``Flux/dispatch(_:payload:value:fileID:line:function:)``), if any.
    public var value: (any Sendable)? { carrier?.value }

    /// The value dispatched with the mixer, if there is one of type `Value`.
    // Inlined: where `Value` is known, the value is read after one comparison of types, without
    // the runtime's dynamic cast; and a receiver reads it through a pointer to the event it
    // borrows, which a call would copy (retaining its name, payload and reference).
    @inlinable @inline(__always)
    public func value<Value: Sendable>(as type: Value.Type) -> Value? {
        let carrier: FluxValueCarrier
        switch kind {
        case .valueMixer:
            carrier = uncheckedCast(uncheckedUnwrap(work), to: FluxValueCarrier.self)
        case .emptyValueMixer:
            guard let kept = keptCarrier else { return nil }
            return kept.withObject { kept in
                kept.valueType == ObjectIdentifier(Value.self)
                    ? uncheckedCast(kept, to: FluxCarried<Value>.self).carried : kept.value(as: Value.self)
            }
        default:
            return nil
        }
        guard carrier.valueType == ObjectIdentifier(Value.self) else { return carrier.value(as: Value.self) }
        return uncheckedCast(carrier, to: FluxCarried<Value>.self).carried
    }

    /// The carrier of the value dispatched with the mixer, if any: its own, or for a value without
    /// bytes, the one kept for the mixer's type (see ``FluxEmptyValues``).
    @usableFromInline
    var carrier: FluxValueCarrier? {
        switch kind {
        case .valueMixer: uncheckedCast(uncheckedUnwrap(work), to: FluxValueCarrier.self)
        case .emptyValueMixer: keptCarrier?.withObject { $0 }
        default: nil
        }
    }

    /// The carrier kept for the mixer's type, for an event of kind `emptyValueMixer`. (Inlined, as
    /// ``lock`` is: read through a pointer, a call would copy the event.)
    @inlinable @inline(__always)
    var keptCarrier: Unretained<FluxValueCarrier>? {
        guard let domain = mixer.domain else { return nil }
        return FluxEmptyValues.carrier(of: ObjectIdentifier(domain))
    }
}

/// A value dispatched with a mixer, and the lock of an exclusive mix: one object, so that a queued
/// item still holds one reference. Always a ``FluxCarried`` of the value's type, which it records,
/// so that a receiver that knows the type reads the value without a dynamic cast
/// (``FluxEvent/value(as:)``).
///
/// `@unchecked Sendable`: not final only for its one subclass, in this file; both hold `let`s of
/// `Sendable` values, set in `init`.
@usableFromInline
class FluxValueCarrier: @unchecked Sendable {
    @usableFromInline let lock: FluxLock?
    /// The type of the value carried.
    @usableFromInline let valueType: ObjectIdentifier

    @usableFromInline
    init(lock: FluxLock?, valueType: ObjectIdentifier) {
        self.lock = lock
        self.valueType = valueType
    }

    /// The value, of whatever type it has.
    var value: any Sendable { preconditionFailure("a FluxValueCarrier is always a FluxCarried") }

    /// The value as a `Value` of another type than its own (an existential, a superclass), if it
    /// is one.
    @usableFromInline
    func value<Value>(as type: Value.Type) -> Value? {
        value as? Value
    }

    /// A carrier of `value`, of its dynamic type (opened from the existential).
    static func carrying(_ value: any Sendable, lock: FluxLock?) -> FluxValueCarrier {
        carrying(typed: value, lock: lock)
    }

    private static func carrying<Value: Sendable>(typed value: Value, lock: FluxLock?) -> FluxValueCarrier {
        FluxCarried(value, lock: lock)
    }
}

/// A value of type `Value` carried with a mixer.
@usableFromInline
final class FluxCarried<Value: Sendable>: FluxValueCarrier, @unchecked Sendable {
    @usableFromInline let carried: Value

    @usableFromInline
    init(_ carried: Value, lock: FluxLock?) {
        self.carried = carried
        super.init(lock: lock, valueType: ObjectIdentifier(Value.self))
    }

    override var value: any Sendable { carried }
}

/// The values of types without stored bytes that were dispatched by their type's name (a typed
/// action such as `struct Refresh: FlaskAction {}`), each in a carrier: one per type, the first
/// one dispatched, kept for the life of the process. A dispatch of such a value then carries no
/// object (no allocation, no reference counted across threads), and a receiver reads the kept
/// value: a value without bits is the same value whoever made it, and the library never makes one
/// up from its type (an uninhabited type has no value to keep).
///
/// Lookups take no lock: a slot's key is published, with release ordering, after its carrier is
/// stored, and read with acquire ordering. Insertions, one per type, are serialized by a lock. The
/// table has room for ``capacity`` types; beyond, dispatches carry a value of their own.
@usableFromInline
enum FluxEmptyValues {
    /// How many types it keeps values of (a power of two).
    @usableFromInline static var capacity: Int { 256 }

    /// A slot: a type's identifier (0 while the slot is free), and the carrier of its kept value,
    /// written once, before the key is published, and never released.
    @usableFromInline
    struct Slot: ~Copyable {
        @usableFromInline let key = Atomic<UInt>(0)
        @usableFromInline var carrier: Unmanaged<FluxValueCarrier>?

        init() {}
    }

    /// The slots, made once, at a stable address: one global, so that a lookup checks that it was
    /// made once.
    // `nonisolated(unsafe)`: the pointer never changes; a slot's carrier is written only before
    // its key is published (release), and read only after its key was seen (acquire).
    @usableFromInline nonisolated(unsafe) static let slots: UnsafeMutablePointer<Slot> = {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        for index in 0..<capacity { (slots + index).initialize(to: Slot()) }
        return slots
    }()

    /// Serializes insertions.
    private static let inserting = LockedValue<Void>(())

    /// Keeps `value`, the value of its type, unless one is kept already; false if the table is full.
    // Inlinable, as `carrier(of:)`: a lookup is a few loads, which a call doubled.
    @inlinable
    static func keep<Value: Sendable>(_ value: Value) -> Bool {
        assert(MemoryLayout<Value>.size == 0, "only values without bytes are kept")
        let type = ObjectIdentifier(Value.self)
        return carrier(of: type) != nil || insert(value)
    }

    /// The carrier of the value kept for `type`, if one was kept (unretained: it is never released).
    @inlinable
    static func carrier(of type: ObjectIdentifier) -> Unretained<FluxValueCarrier>? {
        let key = UInt(bitPattern: type)
        let slots = self.slots
        var index = slot(of: key)
        for _ in 0..<capacity {
            switch slots[index].key.load(ordering: .acquiring) {
            case key: return slots[index].carrier.map(Unretained.init)
            case 0: return nil
            default: index = (index + 1) & (capacity - 1)
            }
        }
        return nil
    }

    /// Keeps `value` (out of line: once per type).
    @usableFromInline @inline(never)
    static func insert<Value: Sendable>(_ value: Value) -> Bool {
        insert(FluxCarried(value, lock: nil), for: UInt(bitPattern: ObjectIdentifier(Value.self)))
    }

    @inline(never)
    private static func insert(_ carrier: FluxValueCarrier, for key: UInt) -> Bool {
        inserting.withLock { _ in
            let slots = self.slots
            var index = slot(of: key)
            for _ in 0..<capacity {
                switch slots[index].key.load(ordering: .acquiring) {
                case key:
                    return true
                case 0:
                    slots[index].carrier = Unmanaged.passRetained(carrier)  // kept for the process's life
                    slots[index].key.store(key, ordering: .releasing)
                    return true
                default:
                    index = (index + 1) & (capacity - 1)
                }
            }
            return false
        }
    }

    @usableFromInline
    static func slot(of key: UInt) -> Int {
        // Type metadata is aligned: the low bits say nothing.
        Int(truncatingIfNeeded: (key >> 4) ^ (key >> 12)) & (capacity - 1)
    }
}
