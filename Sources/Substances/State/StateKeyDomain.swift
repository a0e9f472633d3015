import FlaskLocking

/// The keys of the state types of several substances (a reactor's): a key that none of them has
/// is a mistake; a key one of them lacks may be another's.
///
/// A number: the place of its set of state types among the interned ones, which are never freed,
/// so that a reaction refers to one without retaining it (no reference counting per reaction) and
/// without an unretained reference. One word, so that a reaction, which carries it, still fits in
/// registers. There are as many as there are distinct sets of state types among an app's
/// reactors: a handful.
@usableFromInline
package struct StateKeyDomain: Sendable, Hashable {
    @usableFromInline let index: UInt

    @inlinable init(index: UInt) {
        self.index = index
    }

    /// No domain: the reaction's substance is the reactor's only state type.
    @inlinable package static var none: StateKeyDomain { StateKeyDomain(index: 0) }

    /// Whether one of the domain's state types has `key` (never, for ``none``). Asked only of a
    /// key the reaction's own substance lacks (another substance's key, or a mistake): the
    /// process's one lock of domains, held for the key's look-up (no reference counting).
    package func isValid(key: String) -> Bool {
        guard index != 0 else { return false }
        return StateKeyDomain.interned.withLock { $0.plans[Int(index)].contains { $0.isValid(key: key) } }
    }

    /// The interned sets of state types' plans, by their domain's index (the first, ``none``'s,
    /// is empty), and the index of each set, by the plans' identities in order.
    private static let interned = LockedValue<(indexes: [[ObjectIdentifier]: UInt], plans: [[ReductionPlan]])>(
        ([:], [[]]))

    /// The domain of the state types of `substances`; ``none`` for fewer than two state types (a
    /// key the reaction's own state lacks, no other has).
    package static func of(_ substances: [any AnySubstance]) -> StateKeyDomain {
        var plans: [ObjectIdentifier: ReductionPlan] = [:]
        for case let substance as any PlannedSubstance in substances {
            plans[ObjectIdentifier(substance.plan)] = substance.plan
        }
        guard plans.count > 1 else { return .none }
        let key = plans.keys.sorted()
        return interned.withLock { interned in
            if let existing = interned.indexes[key] { return StateKeyDomain(index: existing) }
            let index = UInt(interned.plans.count)
            interned.plans.append(key.compactMap { plans[$0] })
            interned.indexes[key] = index
            return StateKeyDomain(index: index)
        }
    }
}

/// A substance with a reduction plan (every `Substance`).
protocol PlannedSubstance: AnySubstance {
    var plan: ReductionPlan { get }
}

extension Substance: PlannedSubstance {}
