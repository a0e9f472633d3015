import FluxBus
import Substances

/// A step on a substance of type `T`: everything but the call of its body, which the two kinds of
/// step below make.
@usableFromInline
class SubstanceChainStep<S: State, T: Substance<S>>: ChainStep, @unchecked Sendable {
    final let substance: T

    init(_ substance: T) {
        self.substance = substance
        super.init(substanceID: ObjectIdentifier(substance), bus: substance.bus)
    }

    final override var anySubstance: any AnySubstance { substance }
    final override func substanceName() -> String { substance.name() }
    final override func begin() { substance.beginTransaction() }
    final override func abort() { substance.abortTransaction() }
    final override func commit() -> SubstanceChanges? { substance.commitTransaction() }
    // Consumed, so that delivered changes nobody else holds can be recycled.
    final override func deliver(_ changes: consuming SubstanceChanges) { substance.deliver(changes, lock: nil) }
}
