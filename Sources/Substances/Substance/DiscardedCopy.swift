import Foundation

/// Where `prop` writes go outside a transaction (a misuse, reported): a copy of the state nobody
/// reads, one per thread and state type.
///
/// The caller writes through the address after `prop`'s accessor returned, so the copy must
/// outlive the call; one kept per thread is reused by the thread's next misuse (each write is made
/// on the thread that asked, before it asks again), so that writing `prop` in a loop outside a
/// transaction keeps one discarded copy, not one per write. The copy goes with its thread.
final class DiscardedCopy<S: State> {
    private let slot: UnsafeMutablePointer<S>

    private init(_ value: S) {
        slot = .allocate(capacity: 1)
        slot.initialize(to: value)
    }

    deinit {
        slot.deinitialize(count: 1)
        slot.deallocate()
    }

    /// This thread's copy for `S`, now holding `value`.
    static func slot(holding value: S) -> UnsafeMutablePointer<S> {
        let key = "flask.discarded.\(UInt(bitPattern: ObjectIdentifier(S.self)))"
        let dictionary = Thread.current.threadDictionary
        if let copy = dictionary[key] as? DiscardedCopy<S> {
            copy.slot.pointee = value
            return copy.slot
        }
        let copy = DiscardedCopy(value)
        dictionary[key] = copy
        return copy.slot
    }
}
