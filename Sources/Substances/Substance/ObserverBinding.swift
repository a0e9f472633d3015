import FluxBus

/// A bound observer and the commits it wants, in a box of its own, so that a delivery can call it
/// borrowed, without retaining and releasing it. Immutable: a new interest is a new binding,
/// swapped in between work items.
final class ObserverBinding: Sendable {
    let observer: any SubstanceObserver
    /// Whether the observer keeps the changes it receives on the bus (a reactor: its reactions
    /// cannot leave their handler). Others may keep them or hand them to another thread, so their
    /// changes are marked escaped before they see them.
    let keepsChangesOnBus: Bool
    /// Whether mix reports count the observer as a reactor (asked once, here).
    let countsAsReactor: Bool
    /// The plan entries whose commits the observer wants; nil for every commit.
    let interest: PlanEntrySet?
    /// The mask of ``interest``, or every bit for an observer of every commit: a commit whose
    /// changed entries share no bit with it is skipped with one comparison.
    let mask: UInt64
    /// Whether a commit that passed the mask needs a closer look before it is delivered: the
    /// changes are marked escaped first (an observer that may keep them), or the interest has
    /// entries beyond the 64th (a shared bit may stand for another entry).
    let needsCheck: Bool

    init(_ observer: any SubstanceObserver, interest: PlanEntrySet? = nil) {
        self.observer = observer
        self.keepsChangesOnBus = observer is any ChangesStayOnBus
        self.countsAsReactor = observer.countsAsReactor
        self.interest = interest
        self.mask = interest?.mask ?? ~0
        self.needsCheck = !keepsChangesOnBus || interest?.isExactInMask == false
    }

    /// The same observer with another interest.
    func with(interest: PlanEntrySet?) -> ObserverBinding {
        ObserverBinding(observer, interest: interest)
    }

    /// Delivers a commit that passed the mask: its record, made of the changes (which carry the
    /// rest) and the lock.
    @inline(__always)
    func deliver(_ changes: SubstanceChanges, lock: FluxLock?) {
        if needsCheck, !passesCheck(changes, handingOverLock: lock != nil) { return }
        observer.didCommit(Commit(changes: changes, lock: lock))
    }

    /// For a binding that ``needsCheck``, once the mask passed: whether the commit of `changes`
    /// concerns the observer (always, when it hands over a lock), after marking the changes
    /// escaped for an observer that may keep them. Out of line: most bindings need no check.
    @inline(never)
    func passesCheck(_ changes: SubstanceChanges, handingOverLock: Bool) -> Bool {
        if !handingOverLock, let interest, !interest.touches(changes.entries) { return false }
        if !keepsChangesOnBus { changes.markEscaped() }
        return true
    }
}
