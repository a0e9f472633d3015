// The package's unchecked casts, in one place: each is a cast the caller knows to hold, checked in
// debug builds and free in release builds, where a checked cast is a runtime call on a path that
// runs once per dispatch or per commit (scenarios S1, S1o and S6). Built with
// `-DFLASK_SAFE_PRIMITIVES` (all the primitives) or `-DFLASK_SAFE_CASTS` (these alone), each is the
// checked cast instead, so that `unsafe-primitives.sh` shows what the unchecked ones still save.

/// `object` as the `T` it is known to be (an observer's owner, a recycled changes object of the
/// substance's state type). Debug builds trap if it is not one.
@inlinable @inline(__always)
public func uncheckedCast<T: AnyObject>(_ object: AnyObject, to type: T.Type) -> T {
    #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_CASTS
        return object as! T
    #else
        return unsafeDowncast(object, to: T.self)
    #endif
}

/// The class `type` as the class `T` it is known to be (a class looked up by a key that names
/// it). Debug builds trap if it is another.
@inlinable @inline(__always)
public func uncheckedCast<T: AnyObject>(_ type: AnyClass, to target: T.Type) -> T.Type {
    #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_CASTS
        return type as! T.Type
    #else
        assert(type == T.self, "uncheckedCast: \(type) is not \(T.self)")
        return unsafeBitCast(type, to: T.Type.self)
    #endif
}

/// The value `optional` is known to hold. Debug builds trap if it holds none.
@inlinable @inline(__always)
public func uncheckedUnwrap<Value>(_ optional: Value?) -> Value {
    #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_CASTS
        return optional!
    #else
        return optional.unsafelyUnwrapped
    #endif
}

/// A small number as a thread-specific value: a pointer that is never followed, for
/// `pthread_setspecific` (whose values are pointers); zero is nil. Read back with
/// `threadSpecificNumber(pthread_getspecific(key))`.
@inlinable @inline(__always)
public func threadSpecificValue(_ number: Int) -> UnsafeRawPointer? {
    UnsafeRawPointer(bitPattern: number)
}

/// The number ``threadSpecificValue(_:)`` made a thread-specific value of (zero for nil).
@inlinable @inline(__always)
public func threadSpecificNumber(_ value: UnsafeMutableRawPointer?) -> Int {
    Int(bitPattern: value)
}

/// The two words of a `String` value, read in registers; nil on platforms where a `String` is not
/// two words (and in a build with `-DFLASK_SAFE_STRING_WORDS`: the callers then hash).
///
/// A string of up to 15 UTF-8 bytes is stored in its words, so equal words mean equal text; a
/// longer one's words include the address of its storage. The bus's mixer cache and the
/// reduction plan's key table find names and keys by them without hashing. (Through memory, with
/// `withUnsafeBytes`, the string was spilled to the stack and every caller got a stack protector.)
/// Inlinable: called across the module boundary, it was a call on every reaction's key lookup.
@inlinable @inline(__always)
package func stringWords(_ string: String) -> (UInt64, UInt64)? {
    #if _pointerBitWidth(_64) && !(FLASK_SAFE_PRIMITIVES || FLASK_SAFE_STRING_WORDS)
        return unsafeBitCast(string, to: (UInt64, UInt64).self)
    #else
        return nil
    #endif
}

/// A value that crosses to other threads although its type is not `Sendable`, because whoever
/// wraps it knows why that is safe and says so where it does: an object Flask only compares by
/// identity and never touches (`FlaskRef`), a reaction sent off the bus whose changes were marked
/// escaped first, a value read out of a `State` (which is `Sendable`) through an untyped accessor
/// that returns `Any` (a change probe's values). The one place such a crossing is declared;
/// nothing checks it, in any build (whether a value is `Sendable` is not known at run time), so
/// each use names its reason.
@frozen
public struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The value.
    public let value: Value

    /// Wraps `value`, which the caller knows may cross threads.
    @inlinable
    public init(_ value: Value) {
        self.value = value
    }
}

/// A weak reference, written once, that crosses to other threads although its object's type is
/// not `Sendable`: whoever holds it loads the object only where it may be used (a reactor's owner,
/// loaded where the reactor's handlers run). A class, so that loading the object copies nothing
/// (a struct holding a weak reference, copied, copies the weak reference: two runtime calls).
public final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    /// The object, while it lives.
    public weak let object: Object?

    /// A weak reference to `object`.
    public init(_ object: Object?) {
        self.object = object
    }
}
