import FluxBus
import Substances

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
