import FluxBus
import Substances

/// Mixes one or several substances as one transaction.
///
/// ```swift
/// reactor
///     .mix(substanceA) { $0.prop.counter = 10 }
///     .mix(substanceB) { $0.prop.text = "text" }
///     .react()
/// ```
///
/// The steps are collected on the caller's side and run as **one work item** when the chain is
/// resolved, so nothing interleaves with them and nobody sees their uncommitted state. On
/// ``react(completion:)`` every substance commits, then each delivers its net change to its
/// reactors. On ``abort()`` nothing runs: every substance stays as it was and nothing reacts. A
/// chain dropped without either is aborted and reported, and the bus goes on.
///
/// Aliases: `mixing`, `with` and `and` for `mix`; `andReact` for `react`; `andAbort` for `abort`.
///
/// `@unchecked Sendable`: `steps` and `phase` are read and written only inside ``withState(_:)``,
/// which holds the chain's `FlagLock`.
public final class ChainReaction: @unchecked Sendable {
    /// A step: the identity of the substance it mixes, and one closure that holds the substance and
    /// does each phase of the chain to it. A substance stored beside the closure cost the runtime's
    /// slow reference counting on every call: substances are weakly referenced, so each retain of
    /// one goes through its side table, and a method called on an existential read from the list
    /// retains it first. Calling the closure retains only its context.
    private struct Step {
        let substance: ObjectIdentifier
        let act: @Sendable (consuming Action) -> SubstanceChanges?
    }

    /// What a step's closure does to its substance.
    private enum Action {
        case begin, mix, commit
        case deliver(SubstanceChanges)
    }

    private enum Phase { case open, reacted, aborted }

    /// The steps, the first two in place: most chains have one or two, and an array of their own
    /// was an allocation per chain (about 5% of a two-step chain's instructions).
    private struct Steps {
        private var first: Step?
        private var second: Step?
        private var rest: [Step] = []

        var count: Int { first == nil ? 0 : second == nil ? 1 : 2 + rest.count }

        mutating func append(_ step: Step) {
            if first == nil {
                first = step
            } else if second == nil {
                second = step
            } else {
                rest.append(step)
            }
        }

        /// Calls `body` with the steps in order, moved into temporary storage (the first two
        /// without retaining their closures); the steps are used up.
        mutating func withBuffer<Result>(_ body: (UnsafeBufferPointer<Step>) -> Result) -> Result {
            let count = count
            return withUnsafeTemporaryAllocation(of: Step.self, capacity: count) { buffer in
                let base = buffer.baseAddress.unsafelyUnwrapped
                if count > 0 { base.initialize(to: first.take().unsafelyUnwrapped) }
                if count > 1 { (base + 1).initialize(to: second.take().unsafelyUnwrapped) }
                for (offset, step) in rest.enumerated() { (base + 2 + offset).initialize(to: step) }
                rest = []
                defer { base.deinitialize(count: count) }
                return body(UnsafeBufferPointer(buffer))
            }
        }
    }

    private let bus: Flux
    // A chain is built by one caller in a few calls, so its state is guarded by a flag that is
    // almost never contended: a mutex cost an allocation, an initialization and a destruction per
    // chain, about 8% of a chain's instructions.
    private let stateLock = FlagLock()
    @exclusivity(unchecked) private var steps = Steps()
    @exclusivity(unchecked) private var phase = Phase.open

    /// Creates an empty chain on `bus`.
    public init(bus: Flux = .shared) {
        self.bus = bus
    }

    deinit {
        let (steps, phase) = withState { steps, phase in (steps.count, phase) }
        if phase == .open && steps > 0 {
            bus.report(
                .chainUnresolved,
                "a chain reaction of \(steps) step(s) was dropped without react() or abort(); it was aborted")
        }
    }

    /// Adds a step that mixes `substance`: `body` receives it inside the transaction, where
    /// `substance.prop` is its working copy.
    @discardableResult
    public func mix<T: AnySubstance>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        let added = withState { steps, phase in
            guard phase == .open else { return false }
            steps.append(
                Step(substance: ObjectIdentifier(substance)) { (action: consuming Action) in
                    // Consumed, so that delivered changes nobody else holds can be recycled.
                    switch consume action {
                    case .begin: substance.beginTransaction()
                    case .mix: body(substance)
                    case .commit: return substance.commitTransaction()
                    case .deliver(let changes): substance.deliver(consume changes, lock: nil)
                    }
                    return nil
                })
            return true
        }
        if !added {
            bus.report(.chainResolvedTwice, "mix(\(substance.name())) on a chain that is already resolved; ignored")
        }
        return self
    }

    /// Alias of ``mix(_:_:)``.
    @discardableResult
    public func mixing<T: AnySubstance>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    /// Alias of ``mix(_:_:)``.
    @discardableResult
    public func with<T: AnySubstance>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    /// Alias of ``mix(_:_:)``.
    @discardableResult
    public func and<T: AnySubstance>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        mix(substance, body)
    }

    /// Commits the chain as one work item. `completion` runs on the bus after the reactions.
    public func react(completion: (@Sendable () -> Void)? = nil) {
        guard resolve(.reacted) else { return }
        // The resolved steps stay in the chain, which the work item captures alone when there is
        // no completion: a closure whose only capture is one object uses it as its context, so
        // queueing the chain allocates no context for it.
        if let completion {
            bus.perform(mix: "chain") { [self] in
                ChainReaction.run(takeResolvedSteps())
                completion()
            }
        } else {
            bus.perform(mix: "chain") { [self] in ChainReaction.run(takeResolvedSteps()) }
        }
    }

    /// Alias of ``react(completion:)``.
    public func andReact(completion: (@Sendable () -> Void)? = nil) {
        react(completion: completion)
    }

    /// Commits the chain and suspends until it has been applied and its bus reactions delivered;
    /// returns what each substance did. A chain already resolved returns an empty outcome (and is
    /// reported).
    public func commit() async -> MixOutcome {
        guard resolve(.reacted) else { return MixOutcome(entries: []) }
        let steps = takeResolvedSteps()
        // An active receipt makes substances compute their changes even with nothing bound; the
        // outcome crosses back to this task through the receipt's lock.
        let receipt = FluxReceipt()
        await receipt.await(on: bus, mix: "chain") {
            ChainReaction.run(steps)
        }
        return MixOutcome(receipt: receipt)
    }

    /// Discards the chain: nothing runs, nothing reacts.
    public func abort() {
        _ = resolve(.aborted)
    }

    /// Alias of ``abort()``.
    public func andAbort() {
        abort()
    }

    /// Whether this call resolved the chain. Reacted, its steps stay for the work item to run
    /// (`takeResolvedSteps()`); aborted, they are dropped.
    private func resolve(_ phase: Phase) -> Bool {
        let resolved: Bool = withState { steps, current in
            guard current == .open else { return false }
            current = phase
            if phase == .aborted { steps = Steps() }
            return true
        }
        if !resolved {
            bus.report(.chainResolvedTwice, "a chain reaction was resolved twice; the second call was ignored")
        }
        return resolved
    }

    /// The steps of a reacted chain, taken out of it by its work item (moved, not copied: the
    /// chain has no use for them once they run). They no longer change once the chain is resolved,
    /// but are taken under the lock all the same: a late `mix` or `react` on the resolved chain,
    /// from another thread, takes the builder state for modification while it finds out (the
    /// thread sanitizer reports that as a race with an unlocked read).
    private func takeResolvedSteps() -> Steps {
        withState { steps, _ in
            var taken = Steps()
            swap(&taken, &steps)
            return taken
        }
    }

    /// Runs `body` with the builder state, holding the state's lock (taken and given back
    /// directly: `FlagLock.withLock` is generic code this module would call unspecialized).
    private func withState<Result>(_ body: (inout Steps, inout Phase) -> Result) -> Result {
        stateLock.lock()
        defer { stateLock.unlock() }
        return body(&steps, &phase)
    }

    /// Runs the steps as one transaction, on the bus. Each substance's commit records what it did
    /// in the active receipt, if any.
    private static func run(_ steps: consuming Steps) {
        // The bookkeeping lives on the stack.
        var steps = steps
        steps.withBuffer { steps in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: steps.count) { involved in
                // The substances involved, each once, by the index of their first step.
                var count = 0
                for index in steps.indices {
                    let id = steps[index].substance
                    if !involved[..<count].contains(where: { steps[$0].substance == id }) {
                        involved[count] = index
                        count += 1
                    }
                }
                for position in 0..<count { _ = steps[involved[position]].act(.begin) }
                for index in steps.indices { _ = steps[index].act(.mix) }
                withUnsafeTemporaryAllocation(of: SubstanceChanges?.self, capacity: count) { committed in
                    for position in 0..<count {
                        (committed.baseAddress! + position).initialize(to: steps[involved[position]].act(.commit))
                    }
                    for position in 0..<count {
                        if let changes = (committed.baseAddress! + position).move() {
                            _ = steps[involved[position]].act(.deliver(consume changes))
                        }
                    }
                }
            }
        }
    }
}
