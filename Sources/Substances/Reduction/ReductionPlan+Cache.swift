import FlaskLocking

extension ReductionPlan {
    private static let cache = LockedValue<[ObjectIdentifier: ReductionPlan]>([:])

    /// The plan of a state type, made on first use.
    static func cached<S: State>(for type: S.Type) -> ReductionPlan {
        let id = ObjectIdentifier(type)
        if let plan = cache.withLock({ $0[id] }) { return plan }
        let plan = ReductionPlan(for: type)
        return cache.withLock { cache in
            if let existing = cache[id] { return existing }
            cache[id] = plan
            return plan
        }
    }
}
