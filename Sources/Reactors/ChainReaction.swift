import FluxBus
import Substances
import Synchronization

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
public final class ChainReaction: Sendable {
    private struct Step {
        let substance: any AnySubstance
        let run: @Sendable () -> Void
    }

    private enum Phase { case open, reacted, aborted }

    private let bus: Flux
    private let state = LockedValue<(steps: [Step], phase: Phase)>(([], .open))

    /// Creates an empty chain on `bus`.
    public init(bus: Flux = .shared) {
        self.bus = bus
    }

    deinit {
        let (steps, phase) = state.withLock { ($0.steps.count, $0.phase) }
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
        let added = state.withLock { chain in
            guard chain.phase == .open else { return false }
            chain.steps.append(Step(substance: substance, run: { body(substance) }))
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
        guard let steps = resolve(.reacted) else { return }
        bus.perform(mix: "chain") {
            ChainReaction.run(steps)
            completion?()
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
        guard let steps = resolve(.reacted) else { return MixOutcome(entries: []) }
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

    /// The steps, if this call resolved the chain.
    private func resolve(_ phase: Phase) -> [Step]? {
        let steps: [Step]? = state.withLock { chain in
            guard chain.phase == .open else { return nil }
            chain.phase = phase
            defer { chain.steps.removeAll() }
            return chain.steps
        }
        if steps == nil {
            bus.report(.chainResolvedTwice, "a chain reaction was resolved twice; the second call was ignored")
        }
        return steps
    }

    /// Runs the steps as one transaction, on the bus. Each substance's commit records what it did
    /// in the active receipt, if any.
    private static func run(_ steps: [Step]) {
        var involved: [any AnySubstance] = []
        for step in steps where !involved.contains(where: { $0 === step.substance }) {
            involved.append(step.substance)
        }
        for substance in involved { substance.beginTransaction() }
        for step in steps { step.run() }
        let committed = involved.map { ($0, $0.commitTransaction()) }
        for (substance, changes) in committed {
            if let changes { substance.deliver(changes, lock: nil) }
        }
    }
}
