import Substances

/// A substance held weakly, written once.
///
/// `@unchecked Sendable`: the weak reference is set in `init` and only read afterwards; weak loads
/// are atomic.
struct WeakSubstance: @unchecked Sendable {
    weak var substance: (any AnySubstance)?

    init(_ substance: any AnySubstance) {
        self.substance = substance
    }
}
