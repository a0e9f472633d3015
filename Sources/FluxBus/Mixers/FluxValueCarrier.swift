import FlaskLocking

/// A value dispatched with a mixer, and the lock of an exclusive mix: one object, so that a queued
/// item still holds one reference. Always a ``FluxCarried`` of the value's type, so that a receiver
/// that knows the type reads the value without a dynamic cast (``FluxEvent/value(as:)``).
///
/// `@unchecked Sendable`: not final only for its one subclass, in this file; both hold `let`s of
/// `Sendable` values, set in `init`.
@usableFromInline
class FluxValueCarrier: @unchecked Sendable {
    @usableFromInline let lock: FluxLock?

    @usableFromInline
    init(lock: FluxLock?) {
        self.lock = lock
    }

    /// The value, of whatever type it has.
    var value: any Sendable { preconditionFailure("a FluxValueCarrier is always a FluxCarried") }

    /// A carrier of `value`, of its dynamic type (opened from the existential).
    static func carrying(_ value: any Sendable, lock: FluxLock?) -> FluxValueCarrier {
        carrying(typed: value, lock: lock)
    }

    private static func carrying<Value: Sendable>(typed value: Value, lock: FluxLock?) -> FluxValueCarrier {
        FluxCarried(value, lock: lock)
    }

    /// Carriers of values that take no bytes, one per type, each made from the first such value
    /// dispatched: a value without bits is the same value whoever made it, so later dispatches of
    /// the type share it instead of allocating a carrier each. (Never a value made up from its type:
    /// each one shared was dispatched.) The list holds the types dispatched this way, a handful.
    private static let emptyValues = LockedValue<[(type: ObjectIdentifier, carrier: FluxValueCarrier)]>([])

    /// A carrier of `value`, whose type has no stored bytes, without a lock.
    @usableFromInline
    static func carrying<Value: Sendable>(empty value: Value) -> FluxValueCarrier {
        assert(MemoryLayout<Value>.size == 0, "only values without bytes are shared")
        let type = ObjectIdentifier(Value.self)
        return emptyValues.withLock { carriers in
            for entry in carriers where entry.type == type { return entry.carrier }
            let carrier = FluxCarried(value, lock: nil)
            carriers.append((type, carrier))
            return carrier
        }
    }
}

/// A value of type `Value` carried with a mixer.
@usableFromInline
final class FluxCarried<Value: Sendable>: FluxValueCarrier, @unchecked Sendable {
    @usableFromInline let carried: Value

    @usableFromInline
    init(_ carried: Value, lock: FluxLock?) {
        self.carried = carried
        super.init(lock: lock)
    }

    override var value: any Sendable { carried }
}
