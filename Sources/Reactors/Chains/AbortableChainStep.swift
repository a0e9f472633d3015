import FluxBus
import Substances

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
