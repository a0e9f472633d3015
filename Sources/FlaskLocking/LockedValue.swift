/// A value behind an `InPlaceLock`, reached only through ``withLock(_:)``: for state that is not
/// already a field of an object that can hold the lock itself. One allocation: the lock and the
/// value live in one box.
///
/// Public and inlinable, so that it is specialized where it is used: a `package` declaration's
/// inlinable body is not used by other modules' optimizer, and called generically, every use
/// looked its value type's metadata up at run time. `FlaskLocking` is no product: only the
/// package's own modules import it.
///
/// `Sendable` only where `Value` is: the lock keeps accesses from overlapping, but a value handed
/// out of `withLock` (`v.withLock { $0 }`) leaves the lock, and a non-`Sendable` reference must not
/// reach another thread that way. (`@unchecked`: the value is only ever touched inside `withLock`,
/// with the lock held.)
public struct LockedValue<Value> {
    @usableFromInline let box: Box

    /// A lock guarding `value`. Inlinable, so that the box's class is named with the caller's
    /// value type: called generically, each `LockedValue` made looked the metadata of its
    /// `Box<Value>` up in the runtime's cache (scenario S1a makes a receipt's state per dispatch;
    /// the cost is in docs/performance.md).
    @inlinable
    public init(_ value: Value) {
        box = Box(value)
    }

    /// Runs `body` with exclusive access to the value. Not reentrant: `body` must not take the
    /// same lock again.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try box.lock.withLock { try body(&box.value) }
    }

    /// The lock and the value.
    ///
    /// `@unchecked Sendable`: `value` is touched only while `lock` is held.
    @usableFromInline
    final class Box: @unchecked Sendable {
        @usableFromInline let lock = InPlaceLock()
        // The lock already excludes overlapping accesses.
        @usableFromInline @exclusivity(unchecked) var value: Value

        @usableFromInline
        init(_ value: Value) {
            self.value = value
        }
    }
}

extension LockedValue: @unchecked Sendable where Value: Sendable {}
