import FlaskLocking

/// The keys of the state types of several substances (a reactor's): a key that none of them has
/// is a mistake; a key one of them lacks may be another's.
///
/// Interned per set of state types and never freed, so that a reaction refers to one without
/// retaining it (no reference counting per reaction). There are as many as there are distinct
/// sets of state types among an app's reactors: a handful.
@usableFromInline
package final class StateKeyDomain: Sendable {
    private let plans: [ReductionPlan]

    private init(plans: [ReductionPlan]) {
        self.plans = plans
    }

    /// Whether one of the state types has `key`.
    package func isValid(key: String) -> Bool {
        plans.contains { $0.isValid(key: key) }
    }

    private static let interned = LockedValue<[[ObjectIdentifier]: StateKeyDomain]>([:])

    /// The domain of the state types of `substances`, unretained: it is never freed.
    package static func of(_ substances: [any AnySubstance]) -> Unretained<StateKeyDomain> {
        var plans: [ObjectIdentifier: ReductionPlan] = [:]
        for case let substance as any PlannedSubstance in substances {
            plans[ObjectIdentifier(substance.plan)] = substance.plan
        }
        let key = plans.keys.sorted()
        let domain = interned.withLock { interned in
            if let existing = interned[key] { return existing }
            let domain = StateKeyDomain(plans: key.compactMap { plans[$0] })
            interned[key] = domain
            return domain
        }
        return Unretained(domain)
    }
}

/// A substance with a reduction plan (every `Substance`).
protocol PlannedSubstance: AnySubstance {
    var plan: ReductionPlan { get }
}

extension Substance: PlannedSubstance {}
