/// A value that only the work items of one bus touch, so it needs no lock (in the spirit of
/// swift-nio's `NIOLoopBound`). Every field that Flask's fast path reads and writes without a lock
/// lives in one of these; state of your own that only your bus observers and tasks touch can too.
///
/// Work items run one at a time, on the bus's executor, so two accesses never overlap. That rule
/// is checked, not only written: in debug builds every access checks that the bus is current and
/// traps with the field's name otherwise. In release builds the check and the bookkeeping it needs
/// compile to nothing, and an access is a plain load or store.
///
/// ```swift
/// final class PageCounter: Sendable {
///     // Touched only by the bus's work items: checked in debug builds.
///     private let pages: BusConfined<Int>
///
///     init(bus: Flux) {
///         pages = BusConfined(0, on: bus, "PageCounter.pages")
///         bus.observe("refresh", owner: self) { counter, _ in counter.pages.value += 1 }
///     }
/// }
/// ```
///
/// It owns its value's storage (it cannot be copied, only moved), and changes the value there:
/// so it is a `let` of a `Sendable` class, with nothing `unsafe` or `@unchecked` beside it, and no
/// runtime exclusivity check per access (the bus already serializes the accesses).
///
/// The value is taken as `sending`: the compiler checks that the code that confines it keeps no
/// other way to reach it (a non-`Sendable` object made, confined and then mutated by its maker does
/// not compile).
///
/// Under the thread sanitizer, a change made through a confined value (`box.counter.value += 1`)
/// counts as a write of every stored property on its path (`box.counter`, and the property that
/// holds `box`, if any). Such a property is a `let` and never changes, but a read of it off the
/// bus is reported as racing with the bus: read it in a bus task instead (`Flux.use(_:)` does).
///
/// `@unchecked Sendable`: the value is only touched on its bus, one work item at a time (checked
/// in debug builds); the package's own `unchecked` access, not public, is for an owner's `init`
/// and `deinit`, when no other thread can reach the value, and each use says so.
public struct BusConfined<Value>: ~Copyable, @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<Value>
    #if DEBUG
        @usableFromInline let drainer: FluxDrainer
        @usableFromInline let name: StaticString
    #endif

    /// Confines `value` to `bus`; `name` names the field in a debug build's trap.
    @inlinable
    public init(_ value: sending Value, on bus: Flux, _ name: StaticString) {
        self.init(value, on: bus.drainer, name)
    }

    /// Confines `value` to the bus that `drainer` drains (the bus's own state, made before the
    /// bus itself).
    @inlinable
    init(_ value: sending Value, on drainer: FluxDrainer, _ name: StaticString) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        #if DEBUG
            self.drainer = drainer
            self.name = name
        #endif
    }

    @inlinable
    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The value, on the bus.
    @inlinable
    public var value: Value {
        @inline(__always) get {
            checkConfinement()
            return storage.pointee
        }
        @inline(__always) nonmutating _modify {
            checkConfinement()
            yield &storage.pointee
        }
        @inline(__always) nonmutating set {
            checkConfinement()
            storage.pointee = newValue
        }
    }

    /// The value without the check: only where no other thread can reach its owner (its `init`,
    /// its `deinit`). Not public: a user's code reaches a confined value on its bus only.
    @inlinable
    package var unchecked: Value {
        @inline(__always) get { storage.pointee }
        @inline(__always) nonmutating _modify { yield &storage.pointee }
    }

    @inlinable @inline(__always)
    func checkConfinement() {
        #if DEBUG
            if !drainer.isCurrent { drainer.trapOffBus(name) }
        #endif
    }
}
