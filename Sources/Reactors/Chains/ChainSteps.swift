import FluxBus
import Substances

// The steps of a chain reaction and how the bus runs them: one object per step (a `FluxWork`, so
// that the first step is the chain's work item and queueing a chain allocates nothing more), its
// kinds, the run that mixes every step's substance as one transaction, and the flag a step's
// `ChainAbort` sets. In one file, because the run calls the steps unretained and keeps its
// bookkeeping (the substances involved, their changes, the abort flag) on the stack, in manual
// memory (scenario S6: a two-substance chain; nothing is retained or allocated per step). The
// invariants: the first step holds the rest of the list while the chain runs; the stack
// bookkeeping lives for the run's call only, and `ChainAbort`, which points at its flag, cannot
// outlive a step's call (it cannot be copied or kept).

/// Calls `body` with the steps linked from `first`, in order, unretained (`first` keeps them alive).
func withUnretainedSteps<Result>(
    from first: ChainStep, _ body: (UnsafeBufferPointer<Unmanaged<ChainStep>>) -> Result
) -> Result {
    // Walked unretained: `first` holds the rest.
    var count = 1
    var step = Unmanaged.passUnretained(first)
    while let next = step._withUnsafeGuaranteedRef({ $0.next.map(Unmanaged.passUnretained) }) {
        count += 1
        step = next
    }
    return withUnsafeTemporaryAllocation(of: Unmanaged<ChainStep>.self, capacity: count) { buffer in
        var index = 0
        var step = Unmanaged.passUnretained(first)
        while true {
            buffer[index] = step
            index += 1
            guard index < count else { break }
            step = step._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0.next.unsafelyUnwrapped) }
        }
        return body(UnsafeBufferPointer(buffer))
    }
}

/// A step of a chain: what it does to its substance in each phase, and, as the first step, the
/// chain's work item on the bus. One object per step, which holds the substance and the body; the
/// chain calls it through `Unmanaged` while it runs, and a step reads its own `let` properties, so
/// running a step retains nothing. (Steps kept in a buffer or an optional were copied, and so
/// retained, for every call; a substance is weakly referenced elsewhere, which puts every retain of
/// it on the runtime's slow path.)
///
/// `@unchecked Sendable`: immutable but for `next`, which is set while the chain is built (by its
/// one builder: a chain is not `Sendable`), only read once the chain is resolved and its steps
/// have crossed to the bus through the bus's queue, and cleared by the run, on the bus, after its
/// last read; its subclass holds a `Sendable` substance and body.
@usableFromInline
class ChainStep: FluxWork, @unchecked Sendable {
    /// The identity of the substance it mixes.
    let substanceID: ObjectIdentifier
    /// The identity of the bus of the substance it mixes: the chain compares it with its own
    /// bus's. (An identity, not the bus: a step that held its bus retained it when made and
    /// released it when freed, in every chain.)
    let busID: ObjectIdentifier
    /// The next step of its chain.
    var next: ChainStep?

    @usableFromInline
    init(substanceID: ObjectIdentifier, busID: ObjectIdentifier) {
        self.substanceID = substanceID
        self.busID = busID
    }

    /// Queued as the work item of its chain (when it is the first step): runs the chain.
    override func run() {
        ChainReaction.run(from: self)
    }

    /// The bus of the substance it mixes.
    var bus: Flux { preconditionFailure("a chain step overrides bus") }
    var anySubstance: any AnySubstance { preconditionFailure("a chain step overrides anySubstance") }
    func substanceName() -> String { preconditionFailure("a chain step overrides substanceName()") }
    func begin() { preconditionFailure("a chain step overrides begin()") }
    func mix(_ abort: borrowing ChainAbort) { preconditionFailure("a chain step overrides mix(_:)") }
    func abort() { preconditionFailure("a chain step overrides abort()") }
    func commit() -> SubstanceChanges? { preconditionFailure("a chain step overrides commit()") }
    func deliver(_ changes: consuming SubstanceChanges) { preconditionFailure("a chain step overrides deliver(_:)") }
}

/// A step on a substance of type `T`: everything but the call of its body, which the two kinds of
/// step below make.
@usableFromInline
class SubstanceChainStep<S: State, T: Substance<S>>: ChainStep, @unchecked Sendable {
    final let substance: T

    init(_ substance: T) {
        self.substance = substance
        super.init(substanceID: ObjectIdentifier(substance), busID: ObjectIdentifier(substance.bus))
    }

    final override var bus: Flux { substance.bus }
    final override var anySubstance: any AnySubstance { substance }
    final override func substanceName() -> String { substance.name() }
    final override func begin() { substance.beginTransaction() }
    final override func abort() { substance.abortTransaction() }
    final override func commit() -> SubstanceChanges? { substance.commitTransaction(chain: true) }
    // Consumed, so that delivered changes nobody else holds can be recycled.
    final override func deliver(_ changes: consuming SubstanceChanges) { substance.deliver(changes, lock: nil) }
}

/// A step whose body may abort its chain.
@usableFromInline
final class AbortableChainStep<S: State, T: Substance<S>>: SubstanceChainStep<S, T>, @unchecked Sendable {
    private let body: @Sendable (T, borrowing ChainAbort) -> Void

    @usableFromInline
    init(_ substance: T, _ body: @escaping @Sendable (T, borrowing ChainAbort) -> Void) {
        self.body = body
        super.init(substance)
    }

    override func mix(_ abort: borrowing ChainAbort) { body(substance, abort) }
}

/// A step mixing a substance of type `T` with its body.
@usableFromInline
final class TypedChainStep<S: State, T: Substance<S>>: SubstanceChainStep<S, T>, @unchecked Sendable {
    private let body: @Sendable (T) -> Void

    @usableFromInline
    init(_ substance: T, _ body: @escaping @Sendable (T) -> Void) {
        self.body = body
        super.init(substance)
    }

    override func mix(_ abort: borrowing ChainAbort) { body(substance) }
}

/// What a chain step calls to abort its chain: `abort()`. It lives for the step's call only (it
/// cannot be copied or kept), so it is always called while the chain runs.
public struct ChainAbort: ~Copyable {
    private let flag: UnsafeMutablePointer<Bool>

    init(flag: UnsafeMutablePointer<Bool>) {
        self.flag = flag
    }

    /// Aborts the chain: no substance of it changes, and its later steps do not run.
    public borrowing func callAsFunction() {
        flag.pointee = true
    }
}

extension ChainReaction {
    /// Runs the steps as one transaction, on the bus. Each substance's commit records what it did
    /// in the active receipt, if any.
    static func run(from first: ChainStep) {
        // `first` keeps the list alive meanwhile, so its steps are called unretained; the
        // bookkeeping lives on the stack. Once run, the list is unlinked here: left linked, the
        // first step's release walked it, checking each step's uniqueness (scenario S6).
        defer { first.next = nil }
        withUnretainedSteps(from: first) { steps in
            withUnsafeTemporaryAllocation(of: Unmanaged<ChainStep>.self, capacity: steps.count) { involved in
                // The substances involved, each once, by their first step.
                var count = 0
                for step in steps {
                    let id = step._withUnsafeGuaranteedRef { $0.substanceID }
                    if !involved[..<count].contains(where: { $0._withUnsafeGuaranteedRef { $0.substanceID } == id }) {
                        involved[count] = step
                        count += 1
                    }
                }
                for position in 0..<count { involved[position]._withUnsafeGuaranteedRef { $0.begin() } }
                var aborted = false
                withUnsafeMutablePointer(to: &aborted) { flag in
                    let abort = ChainAbort(flag: flag)
                    for step in steps where !flag.pointee { step._withUnsafeGuaranteedRef { $0.mix(abort) } }
                }
                if aborted {
                    // A step aborted the chain: every substance is left exactly as it was.
                    for position in 0..<count { involved[position]._withUnsafeGuaranteedRef { $0.abort() } }
                    return
                }
                withUnsafeTemporaryAllocation(of: SubstanceChanges?.self, capacity: count) { committed in
                    let changes = committed.baseAddress.unsafelyUnwrapped
                    for position in 0..<count {
                        (changes + position).initialize(to: involved[position]._withUnsafeGuaranteedRef { $0.commit() })
                    }
                    for position in 0..<count {
                        if let delivered = (changes + position).move() {
                            involved[position]._withUnsafeGuaranteedRef { $0.deliver(delivered) }
                        }
                    }
                }
            }
        }
    }
}
