import Archive
import FluxBus

/// A weak reference to a substance, made once with it and shared by what refers to the substance
/// without keeping it alive: each commit's changes, its mixer resolver, its archive reports.
///
/// Holding this object costs a plain retain. Forming a weak reference to the substance on every
/// commit cost a runtime call, and every retain and release of the substance itself takes the
/// runtime's slow path, because it is weakly referenced.
///
/// `@unchecked Sendable`: `substance` and `identity` are written once, by ``attach(_:)`` in the
/// substance's `init`, before the substance can be seen by another thread; weak loads are atomic.
final class SubstanceReference: @unchecked Sendable {
    private(set) weak var substance: (any AnySubstance)?
    private(set) var identity = ObjectIdentifier(SubstanceReference.self)
    let bus: Flux
    let stateType: any Any.Type

    init(bus: Flux, stateType: any Any.Type) {
        self.bus = bus
        self.stateType = stateType
    }

    /// The substance's name for messages, or its state type's if it has gone away.
    var name: String { substance?.name() ?? "\(stateType) (gone)" }

    /// The name as reports write it (see `AnySubstance.nameInReports`).
    var nameInReports: String { ArchiveProblem.shortened(name) }

    /// Points the reference at its substance (once, in the substance's `init`).
    func attach(_ substance: any AnySubstance) {
        self.substance = substance
        identity = ObjectIdentifier(substance)
    }
}
