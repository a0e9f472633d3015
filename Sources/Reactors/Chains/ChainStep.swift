import FluxBus
import Substances

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
/// one builder: a chain is not `Sendable`), and only read once the chain is resolved and its steps
/// have crossed to the bus through the bus's queue; its subclass holds a `Sendable` substance and
/// body.
@usableFromInline
class ChainStep: FluxWork, @unchecked Sendable {
    /// The identity of the substance it mixes.
    let substanceID: ObjectIdentifier
    /// The bus of the substance it mixes.
    let bus: Flux
    /// The next step of its chain.
    var next: ChainStep?

    @usableFromInline
    init(substanceID: ObjectIdentifier, bus: Flux) {
        self.substanceID = substanceID
        self.bus = bus
    }

    /// Queued as the work item of its chain (when it is the first step): runs the chain.
    override func run() {
        ChainReaction.run(from: self)
    }

    var anySubstance: any AnySubstance { preconditionFailure("a chain step overrides anySubstance") }
    func substanceName() -> String { preconditionFailure("a chain step overrides substanceName()") }
    func begin() { preconditionFailure("a chain step overrides begin()") }
    func mix(_ abort: borrowing ChainAbort) { preconditionFailure("a chain step overrides mix(_:)") }
    func abort() { preconditionFailure("a chain step overrides abort()") }
    func commit() -> SubstanceChanges? { preconditionFailure("a chain step overrides commit()") }
    func deliver(_ changes: consuming SubstanceChanges) { preconditionFailure("a chain step overrides deliver(_:)") }
}
