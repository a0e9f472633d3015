// Lending without retaining: references and array elements used in place, on the hot paths
// where a retain and a release (two atomic operations each) or a copy of a value with references
// would cost more than the work itself. Each use names what keeps the lent thing alive. Built with
// `-DFLASK_SAFE_PRIMITIVES`, each lends the safe way instead (a strong reference, a copy, a bounds
// check), so that `instructions.sh --safe-primitives` shows what they still save; each by itself
// with `-DFLASK_SAFE_UNRETAINED` or `-DFLASK_SAFE_MOVES` (`Benchmarks/scripts/unsafe-primitives.sh`).

/// A reference to an object that something else keeps alive, used without retaining or releasing
/// it: for the hot paths that call an object many times a commit (a substance's observers, a
/// route's handler and owner; scenarios S3 and S3d), where a retain and a release are two atomic
/// operations each, on the runtime's slow path for an object with weak references.
///
/// The invariant, which whoever makes one names: the object outlives every use of the reference.
/// Debug builds check it: a weak reference kept beside it must still find the object at each use.
@frozen
public struct Unretained<Object: AnyObject> {
    #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_UNRETAINED
        @usableFromInline let strong: Object
    #endif
    @usableFromInline let reference: Unmanaged<Object>
    #if DEBUG
        @usableFromInline weak var check: Object?
    #endif

    /// An unretained reference to `object`, which something else keeps alive.
    @inlinable
    public init(_ object: borrowing Object) {
        #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_UNRETAINED
            strong = copy object
        #endif
        reference = .passUnretained(copy object)
        #if DEBUG
            check = copy object
        #endif
    }

    /// An unretained reference to the object `unmanaged` refers to (an object kept by a reference
    /// its holder retained once for good, say).
    @inlinable
    public init(_ unmanaged: Unmanaged<Object>) {
        #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_UNRETAINED
            strong = unmanaged.takeUnretainedValue()
        #endif
        reference = unmanaged
        #if DEBUG
            check = unmanaged.takeUnretainedValue()
        #endif
    }

    /// The reference whose ``bitPattern`` is `bits` (nonzero), kept where only a word fits (an
    /// atomic).
    @inlinable
    public init?(bitPattern bits: UInt) {
        guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
        self.init(Unmanaged<Object>.fromOpaque(pointer))
    }

    /// The reference as a word, nonzero, for ``init(bitPattern:)``.
    @inlinable
    public var bitPattern: UInt { UInt(bitPattern: reference.toOpaque()) }

    /// Calls `body` with the object, borrowed.
    @inlinable @inline(__always)
    public func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        #if DEBUG
            precondition(check != nil, "an unretained reference outlived its object")
        #endif
        #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_UNRETAINED
            return try body(strong)
        #else
            return try reference._withUnsafeGuaranteedRef(body)
        #endif
    }

    /// The object's identity.
    @inlinable
    public var identity: ObjectIdentifier { reference._withUnsafeGuaranteedRef { ObjectIdentifier($0) } }
}

/// `@unchecked Sendable` where the object is `Sendable`: the reference is a word; sharing it is
/// sharing the object.
extension Unretained: @unchecked Sendable where Object: Sendable {}

extension Array {
    /// Calls `body` with each element from `start` on, moved out of the array and moved back
    /// after: the element is lent as the caller's own, without a copy (a copy of an element with
    /// references retains and releases them: the bus's items, scenario S1). `body` returns false
    /// to stop; the index it stopped after is returned, nil when it went to the end.
    ///
    /// `body` must not touch the array (it cannot: the array is borrowed `inout` meanwhile).
    @inlinable @inline(__always)
    public mutating func forEachMovedOut(from start: Int, _ body: (borrowing Element, Int) -> Bool) -> Int? {
        #if FLASK_SAFE_PRIMITIVES || FLASK_SAFE_MOVES
            var index = start
            while index < count {
                let goesOn = body(self[index], index)
                index += 1
                if !goesOn { return index }
            }
            return nil
        #else
            return forEachMovedOutInPlace(from: start, body)
        #endif
    }

    @inlinable @inline(__always)
    mutating func forEachMovedOutInPlace(from start: Int, _ body: (borrowing Element, Int) -> Bool) -> Int? {
        withUnsafeMutableBufferPointer { elements in
            var index = start
            while index < elements.count {
                // In bounds: `index < count`.
                let slot = elements.baseAddress.unsafelyUnwrapped + index
                let element = slot.move()
                let goesOn = body(element, index)
                slot.initialize(to: consume element)
                index += 1
                if !goesOn { return index }
            }
            return nil
        }
    }
}

/// An object's identity, held weakly: whether the object is still alive, and whether it is a given
/// object. For registries that must tell live owners apart without keeping them alive or calling
/// them (the archiver's claims on keys).
///
/// `@unchecked Sendable` whatever the object: the reference is never handed out, only compared and
/// tested for nil, and a weak reference is read atomically, so no object can reach another thread
/// through it. (A `weak let` of a non-`Sendable` type is not `Sendable` as checked.)
package struct WeakIdentity: @unchecked Sendable {
    private weak let object: AnyObject?

    /// The identity of `object`, held weakly.
    package init(_ object: AnyObject) {
        self.object = object
    }

    /// Whether the object is still alive.
    package var isAlive: Bool { object != nil }

    /// Whether the object is `other`.
    package func refers(to other: AnyObject) -> Bool { object === other }
}
