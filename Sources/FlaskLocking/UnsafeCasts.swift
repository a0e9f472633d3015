// The package's unchecked casts, in one place: each is a cast the caller knows to hold, checked in
// debug builds and free in release builds, where a checked cast is a runtime call on a path that
// runs once per dispatch or per value (scenarios S1 and S6; restoring an archive).

/// `object` as the `T` it is known to be (an observer's owner, a recycled changes object of the
/// substance's state type). Debug builds trap if it is not one.
@inlinable @inline(__always)
package func uncheckedCast<T: AnyObject>(_ object: AnyObject, to type: T.Type) -> T {
    unsafeDowncast(object, to: T.self)
}

/// `value` as `Target`, which is known to be its type `Value` (a generic value after a check such
/// as `Value.self == Int.self`). Debug builds trap if the two types differ.
@inlinable @inline(__always)
package func uncheckedSameType<Value, Target>(_ value: Value, as type: Target.Type) -> Target {
    assert(Value.self == Target.self, "uncheckedSameType: \(Value.self) is not \(Target.self)")
    return unsafeBitCast(value, to: Target.self)
}

/// The two words of a `String` value, read in registers; nil on platforms where a `String` is not
/// two words.
///
/// A string of up to 15 UTF-8 bytes is stored in its words, so equal words mean equal text; a
/// longer one's words include the address of its storage. The bus's mixer cache and the
/// reduction plan's key table find names and keys by them without hashing. (Through memory, with
/// `withUnsafeBytes`, the string was spilled to the stack and every caller got a stack protector.)
/// Inlinable: called across the module boundary, it was a call on every reaction's key lookup.
@inlinable @inline(__always)
package func stringWords(_ string: String) -> (UInt64, UInt64)? {
    #if _pointerBitWidth(_64)
        return unsafeBitCast(string, to: (UInt64, UInt64).self)
    #else
        return nil
    #endif
}

/// A value known to be `Sendable` whose static type cannot say so: a value read out of a `State`
/// (which is `Sendable`) through an untyped accessor such as `SubstanceChange.oldValue()`, which
/// returns `Any`. Whoever wraps one names where the value comes from and why it is `Sendable`.
///
/// Nothing checks it, in any build: whether a value is `Sendable` is not known at run time.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The value.
    package let value: Value

    /// `value`, known to be `Sendable`.
    package init(_ value: Value) {
        self.value = value
    }
}
