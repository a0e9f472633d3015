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
