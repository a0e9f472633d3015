/// A reference to an object that something else keeps alive, used without retaining or releasing
/// it: for the hot paths that call an object many times a commit (a substance's observers, a
/// route's handler and owner; scenarios S3 and S3d), where a retain and a release are two atomic
/// operations each, on the runtime's slow path for an object with weak references.
///
/// The invariant, which whoever makes one names: the object outlives every use of the reference.
/// Debug builds check it: a weak reference kept beside it must still find the object at each use.
@frozen
public struct Unretained<Object: AnyObject> {
    @usableFromInline let reference: Unmanaged<Object>
    #if DEBUG
        @usableFromInline weak var check: Object?
    #endif

    /// An unretained reference to `object`, which something else keeps alive.
    @inlinable
    public init(_ object: Object) {
        reference = .passUnretained(object)
        #if DEBUG
            check = object
        #endif
    }

    /// Calls `body` with the object, borrowed.
    @inlinable @inline(__always)
    public func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        #if DEBUG
            precondition(check != nil, "an unretained reference outlived its object")
        #endif
        return try reference._withUnsafeGuaranteedRef(body)
    }

    /// The object's identity.
    @inlinable
    public var identity: ObjectIdentifier { reference._withUnsafeGuaranteedRef { ObjectIdentifier($0) } }
}

/// `@unchecked Sendable` where the object is `Sendable`: the reference is a word; sharing it is
/// sharing the object.
extension Unretained: @unchecked Sendable where Object: Sendable {}

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
