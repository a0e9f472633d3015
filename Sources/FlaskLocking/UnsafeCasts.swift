// The package's unchecked casts, in one place: each is a cast the caller knows to hold, checked in
// debug builds and free in release builds, where a checked cast is a runtime call on a path that
// runs once per dispatch or per commit (scenarios S1, S1o and S6). Built with
// `-DFLASK_SAFE_PRIMITIVES` (all the primitives) or `-DFLASK_SAFE_CASTS` (these alone), each is the
// checked cast instead, so that `unsafe-primitives.sh` shows what the unchecked ones still save.
// And the one bit cast of a value that is not a class: a `String` read as its two words
// (`stringWords`), with the table of keys found by them (`KeyTable`), whose exactness rests on
// `String`'s layout alone; `-DFLASK_SAFE_STRING_WORDS` turns it off.

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

/// Keys (a state's, in its reduction plan) by the bits of their `String` value (``stringWords(_:)``),
/// looked up by `reaction.on(key)` on every reaction without hashing or comparing strings. Here,
/// beside ``stringWords(_:)``, because what makes it exact is how a `String` is laid out.
///
/// A key of up to 15 UTF-8 bytes is stored inline in its `String`, so two such strings with the
/// same bits have the same contents; a longer key's bits include the address of its storage, which
/// the table keeps alive, so equal bits mean the same storage. A lookup therefore never finds a wrong
/// entry; it may miss (a long key built at run time, a platform where `String` is not two words),
/// and the caller then compares strings.
///
/// Built once per state type and never changed, so any thread may read it.
public struct KeyTable: Sendable {
    @usableFromInline struct Slot: Sendable {
        @usableFromInline let bits: (UInt64, UInt64)
        @usableFromInline let entry: Int32
    }

    /// Open addressing, a power of two at most half full; empty slots have entry -1.
    @usableFromInline let slots: [Slot]
    @usableFromInline let shift: UInt64
    /// The plan's keys, kept alive so that the addresses in long keys' bits stay theirs.
    private let keys: [String]

    /// A table of `keys`, each found as the entry of its index.
    public init(keys: [String]) {
        self.keys = keys
        var capacity = 4
        while capacity < keys.count * 2 { capacity *= 2 }
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        var slots = Array(repeating: Slot(bits: (0, 0), entry: -1), count: capacity)
        for (entry, key) in keys.enumerated() {
            guard let bits = stringWords(key) else { continue }
            var index = KeyTable.index(of: bits, shift: shift)
            while slots[index].entry >= 0 { index = (index + 1) & (capacity - 1) }
            slots[index] = Slot(bits: bits, entry: Int32(entry))
        }
        self.slots = slots
    }

    /// The entry of `key`, or nil when the table does not know these bits.
    @inlinable @inline(__always)
    public func entry(forKey key: String) -> Int32? {
        guard let bits = stringWords(key) else { return nil }
        var index = KeyTable.index(of: bits, shift: shift)
        while true {
            // In bounds (masked to the table's count, a power of two); the subscript checks it
            // anyway: unchecked, it saved too little to keep (docs/performance.md, "What each
            // unsafe primitive saves").
            let slot = slots[index]
            if slot.entry < 0 { return nil }
            if slot.bits == bits { return slot.entry }
            index = (index &+ 1) & (slots.count &- 1)
        }
    }

    @inlinable @inline(__always)
    static func index(of bits: (UInt64, UInt64), shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) &>> shift)
    }
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
