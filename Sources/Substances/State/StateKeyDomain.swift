import FlaskLocking

/// The keys of the state types of several substances (a reactor's): a key that none of them has
/// is a mistake; a key one of them lacks may be another's.
///
/// Interned per set of state types and never freed, and named by an ``ID``, a number, so that a
/// reaction refers to one without retaining it (no reference counting per reaction) and without
/// an unretained reference. There are as many as there are distinct sets of state types among an
/// app's reactors: a handful.
@usableFromInline
package final class StateKeyDomain: Sendable {
    /// A domain, by its place among the interned ones; ``none`` for a reactor of one substance.
    /// One word, so that a reaction, which carries it, still fits in registers.
    @usableFromInline
    package struct ID: Sendable, Hashable {
        @usableFromInline let index: UInt

        @inlinable init(index: UInt) {
            self.index = index
        }

        /// No domain: the reaction's substance is the reactor's only one.
        @inlinable package static var none: ID { ID(index: 0) }

        /// Whether one of the domain's state types has `key` (never, for ``none``). Asked only of a
        /// key the reaction's own substance lacks (another substance's key, or a mistake): the
        /// process's one lock of domains, held for the key's look-up (no reference counting).
        package func isValid(key: String) -> Bool {
            guard index != 0 else { return false }
            return StateKeyDomain.interned.withLock { $0.domains[Int(index)].isValid(key: key) }
        }
    }

    private let plans: [ReductionPlan]

    private init(plans: [ReductionPlan]) {
        self.plans = plans
    }

    /// Whether one of the state types has `key`.
    package func isValid(key: String) -> Bool {
        plans.contains { $0.isValid(key: key) }
    }

    /// The domains, by their ID's index (the first, ``ID/none``'s, has no state type).
    private static let interned = LockedValue<(ids: [[ObjectIdentifier]: ID], domains: [StateKeyDomain])>(
        ([:], [StateKeyDomain(plans: [])]))

    /// The domain of the state types of `substances`.
    package static func of(_ substances: [any AnySubstance]) -> ID {
        var plans: [ObjectIdentifier: ReductionPlan] = [:]
        for case let substance as any PlannedSubstance in substances {
            plans[ObjectIdentifier(substance.plan)] = substance.plan
        }
        let key = plans.keys.sorted()
        return interned.withLock { interned in
            if let existing = interned.ids[key] { return existing }
            let id = ID(index: UInt(interned.domains.count))
            interned.domains.append(StateKeyDomain(plans: key.compactMap { plans[$0] }))
            interned.ids[key] = id
            return id
        }
    }
}

/// A substance with a reduction plan (every `Substance`).
protocol PlannedSubstance: AnySubstance {
    var plan: ReductionPlan { get }
}

extension Substance: PlannedSubstance {}
