import Archive
import FlaskLocking
import FluxBus
import Synchronization

/// A weak reference to a substance, made once with it and shared by what refers to the substance
/// without keeping it alive: each commit's changes, its mixer resolver, its archive reports.
///
/// Holding this object costs a plain retain. Forming a weak reference to the substance on every
/// commit cost a runtime call, and every retain and release of the substance itself takes the
/// runtime's slow path, because it is weakly referenced.
///
/// `substance` and `identity` are written once, by ``attach(_:)`` in the substance's `init`,
/// before the substance can be seen by another thread; they are read behind a lock all the same
/// (a reference is read when a commit's changes are made, not at each delivery).
package final class SubstanceReference: Sendable {
    private struct Attached {
        weak var substance: (any AnySubstance)?
        var identity = ObjectIdentifier(SubstanceReference.self)
    }

    private let attached = LockedValue(Attached())
    /// The substance, while it lives.
    package var substance: (any AnySubstance)? { attached.withLock { $0.substance } }
    /// The substance's identity.
    var identity: ObjectIdentifier { attached.withLock { $0.identity } }
    let bus: Flux
    let stateType: any Any.Type
    /// A number no other reference has, ever: what tells this one's substance from any other
    /// without holding the reference (which holds the bus) or loading a weak one (a journal tells
    /// the substance of the last commit by it), and numbers a `Substance`'s default name
    /// (`<State>#<n>`).
    package let serial = referenceSerial.add(1, ordering: .relaxed).newValue

    init(bus: Flux, stateType: any Any.Type) {
        self.bus = bus
        self.stateType = stateType
    }

    /// The substance's name for messages, or its state type's if it has gone away.
    var name: String { substance?.name() ?? "\(stateType) (gone)" }

    /// The name as reports write it (see `AnySubstance.nameInReports`).
    var nameInReports: String { ArchiveProblem.shortened(name) }

    /// The reference of `substance`: its own for a `Substance`, a new one for any other.
    package static func of(_ substance: any AnySubstance) -> SubstanceReference {
        if let keyed = substance as? any KeyedSubstance { return keyed.reference }
        let reference = SubstanceReference(bus: substance.bus, stateType: Any.self)
        reference.attach(substance)
        return reference
    }

    /// Points the reference at its substance (once, in the substance's `init`).
    func attach(_ substance: any AnySubstance) {
        attached.withLock {
            $0.substance = substance
            $0.identity = ObjectIdentifier(substance)
        }
    }
}

/// The last ``SubstanceReference/serial`` given.
private let referenceSerial = Atomic<UInt64>(0)
