@_spi(FlaskInternals) import FluxBus
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
/// ``react(fileID:line:function:)`` every substance commits, then each delivers its net change to its
/// reactors. On ``abort()`` nothing runs: every substance stays as it was and nothing reacts. A
/// chain dropped without either is aborted and reported, and the bus goes on. Once resolved, the
/// chain holds nothing: a reacted chain's steps travel with its work item, each holding its
/// substance and body until it has run.
///
/// All its substances must mix on one bus (a chain is one work item of that bus). A chain made with
/// `ChainReaction()` runs on the bus of its first substance; `ChainReaction(bus:)` pins it. A step
/// for a substance of another bus is refused where `mix` is called, reported on that substance's
/// bus (`chain-across-buses`), and the whole chain then runs nothing, as if aborted.
///
/// Aliases: `mixing`, `with` and `and` for `mix`; `andReact` for `react`; `andAbort` for `abort`.
///
/// Not `Sendable`: a chain is built by one caller, in a few calls, so it needs no lock, and the
/// compiler keeps it from being shared while it is built. (Once resolved, its steps cross to the
/// bus through the bus's queue.)
public final class ChainReaction {
    private enum Phase { case open, reacted, aborted }

    /// The steps: a list linked through the steps themselves, so that the work item of a reacted
    /// chain captures one object, its first step, and queueing it allocates no closure context.
    private struct Steps {
        private(set) var first: ChainStep?
        /// The list's tail, unretained: `first` holds it, through the steps' `next`. (Held, it was
        /// retained when appended and released when replaced, in every chain: scenario S6; read
        /// from an unowned reference, it was retained and released to link the next step.)
        private var last: Unmanaged<ChainStep>?
        private(set) var count = 0

        mutating func append(_ step: consuming ChainStep) {
            // The tail is the one step with no next, there exactly when the list has a first.
            assert(
                (first == nil) == (last == nil) && last?._withUnsafeGuaranteedRef({ $0.next == nil }) != false,
                "a chain's last step is not its list's tail")
            let added = Unmanaged.passUnretained(step)
            // Moved in, not copied: the list takes over the caller's reference (a copy was
            // retained here and the caller's released after, for every step).
            var moving: ChainStep? = consume step
            if let last { last._withUnsafeGuaranteedRef { swap(&$0.next, &moving) } } else { swap(&first, &moving) }
            last = added
            count += 1
        }

        /// Empties the list, and returns its first step, which holds the others (moved out: a
        /// copy was retained and the list's released, in every chain, scenario S6).
        mutating func takeFirst() -> ChainStep? {
            var taken: ChainStep? = nil
            swap(&taken, &first)
            last = nil
            count = 0
            return taken
        }

        /// The steps' substances, each once, in the order of their first step.
        var substances: [any AnySubstance] {
            var substances: [any AnySubstance] = []
            var step = first
            while let current = step {
                if !substances.contains(where: { ObjectIdentifier($0) == current.substanceID }) {
                    substances.append(current.anySubstance)
                }
                step = current.next
            }
            return substances
        }
    }

    /// The bus the chain runs on: given, or its first substance's (nil until then).
    @exclusivity(unchecked) private var bus: Flux?
    /// The identity of `bus`, set with it, which each step's bus is compared with (read from
    /// `bus`, the bus was retained and released for every step).
    @exclusivity(unchecked) private var busID: ObjectIdentifier?
    // Unchecked exclusivity: one builder at a time (a chain is not `Sendable`), and no access
    // overlaps another; the runtime's checks were a large share of a chain's cost.
    @exclusivity(unchecked) private var steps = Steps()
    @exclusivity(unchecked) private var phase = Phase.open
    /// The substances of the steps refused because they mix on another bus: the chain then runs
    /// nothing.
    @exclusivity(unchecked) private var refused: [any AnySubstance]? = nil
    private var isRejected: Bool { refused != nil }
    /// The name the chain's mix goes by in reports: its label, or `chain`.
    @exclusivity(unchecked) private var mixName: FluxMixerName = "chain"

    /// Creates an empty chain on `bus`; by default, the chain runs on the bus of its first
    /// substance (the shared bus, unless you made the substance with `bus:`).
    ///
    /// - Parameters:
    ///   - bus: the bus to run on; the first substance's by default.
    ///   - label: the chain's name in reports (the logger, the diff printer, a journal and its
    ///     page, `MixOutcome.label`): `"moveCard"`, so that a debugging session tells it from
    ///     `"addCard"`. `chain` when nil.
    public init(bus: Flux? = nil, label: String? = nil) {
        self.bus = bus
        busID = bus.map(ObjectIdentifier.init)
        if let label { mixName = FluxMixerName(label) }
    }

    /// Names the chain in reports (see ``init(bus:label:)``): the spelling for a chain started
    /// from a reactor.
    ///
    /// ```swift
    /// reactor.mix(board) { $0.prop.counter -= 1 }.mix(done) { $0.prop.counter += 1 }.labeled("moveCard").react()
    /// ```
    @discardableResult
    public func labeled(_ label: String) -> ChainReaction {
        mixName = FluxMixerName(label)
        return self
    }

    deinit {
        if phase == .open && steps.count > 0 && !isRejected, let bus { reportUnresolved(on: bus) }
    }

    /// Reports a chain dropped unresolved, named by its label and substances, so that the report
    /// leads to the code that made it. Out of line: in `deinit` it kept a chain, which usually
    /// lives on its caller's stack, from being inlined there (scenario S6).
    @inline(never)
    private func reportUnresolved(on bus: Flux) {
        let substances = steps.substances.map(\.nameInReports).joined(separator: ", ")
        bus.report(
            .chainUnresolved,
            "a chain reaction (\(mixName)) of \(steps.count) step(s) mixing \(substances) was dropped without "
                + "react() or abort(); it was aborted")
    }

    /// Adds a step that mixes `substance`: `body` receives it inside the transaction, where
    /// `substance.prop` is its working copy.
    // Inlinable, so that the step's class is named with the caller's concrete type: its metadata is
    // then cached where it is made, where a generic `mix` looked it up at run time for every step.
    @inlinable
    @discardableResult
    public func mix<S, T: Substance<S>>(_ substance: T, _ body: @escaping @Sendable (T) -> Void) -> ChainReaction {
        append(TypedChainStep(substance, body))
        return self
    }

    /// Adds a step that mixes `substance` and may abort the whole chain: call `abort()` and no
    /// substance of the chain changes (the later steps do not run; the awaited ``reactAndWait(fileID:line:function:)``
    /// reports every substance aborted).
    ///
    /// ```swift
    /// await reactor
    ///     .mix(session) { $0.prop.user = nil }
    ///     .mix(todos) { todos, abort in
    ///         guard !todos.prop.hasUnsavedChanges else { return abort() }
    ///         todos.prop.items = []
    ///     }
    ///     .reactAndWait()
    /// ```
    @inlinable
    @discardableResult
    public func mix<S, T: Substance<S>>(
        _ substance: T, _ body: @escaping @Sendable (T, borrowing ChainAbort) -> Void
    ) -> ChainReaction {
        append(AbortableChainStep(substance, body))
        return self
    }

    /// Adds a step, unless the chain is resolved (reported) or its substance mixes on another bus
    /// (reported; the chain will run nothing). Returns nothing: `mix`, inlined where the chain is
    /// built, returns `self` itself (returned from here, it was retained for every step).
    @usableFromInline
    func append(_ step: consuming ChainStep) {
        guard phase == .open else {
            return (bus ?? step.bus).report(
                .chainResolvedTwice, "mix(\(step.substanceName())) on a chain that is already resolved; ignored")
        }
        // Compared by identity, without reading the bus.
        if busID == nil {
            bus = step.bus
            busID = step.busID
        } else if busID != step.busID {
            return refuse(step)
        }
        steps.append(consume step)
    }

    /// Refuses a step whose substance mixes on another bus than the chain's: the chain will run
    /// nothing. Reported once, to the refused substance's bus.
    private func refuse(_ step: ChainStep) {
        let first = !isRejected
        refused = (refused ?? []) + [step.anySubstance]
        guard first, let bus else { return }
        let chainBus = steps.count > 0 ? "its earlier steps mix on" : "it was made for"
        step.bus.report(
            .chainAcrossBuses,
            "mix(\(step.substanceName())): its substance mixes on the bus \"\(step.bus.label)\", the chain "
                + "runs on \"\(bus.label)\" (\(chainBus) it); a chain is one work item of one bus, so this "
                + "chain will change nothing")
    }

    /// Commits the chain as one work item: its steps run on the bus, as one transaction.
    ///
    /// - Parameters:
    ///   - fileID: where the chain is committed from (`FluxEvent.origin`, `Commit.origin`); leave
    ///     the default.
    ///   - line: where it is committed from; leave the default.
    ///   - function: where it is committed from; leave the default.
    public func react(fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function) {
        // The work item is the first step, which runs the list: queueing the chain allocates
        // nothing more. It holds the steps, not the chain: the chain is freed where it was made
        // (usually right after this call), and the steps cross to the bus through its queue.
        guard let first = resolve(.reacted), let bus else { return }
        bus.perform(mix: mixName, first, origin: FluxOrigin(fileID: fileID, line: line, function: function))
    }

    /// Commits the chain as one work item, as ``react(fileID:line:function:)``, and calls
    /// `completion` on the bus after the reactions (for the deprecated completion spellings).
    func react(origin: FluxOrigin?, then completion: @escaping @Sendable () -> Void) {
        guard let first = resolve(.reacted), let bus else { return }
        bus.perform(
            mix: mixName, origin: origin,
            {
                ChainReaction.run(from: first)
                completion()
            }, whenDropped: {})
    }

    /// Commits the chain, as ``react(fileID:line:function:)``, and suspends until it has been applied and its bus
    /// reactions delivered; returns what each substance did (`MixOutcome.wasAborted` when a step
    /// aborted it). A chain already resolved returns an empty outcome (and is reported); a chain
    /// that refused a step of another bus ran nothing, and every substance it names is reported
    /// aborted.
    ///
    /// ```swift
    /// let outcome = await reactor.mix(todos) { $0.prop.items = [] }.reactAndWait()
    /// if outcome.wasApplied { print("cleared") }
    /// ```
    @discardableResult
    public func reactAndWait(
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> MixOutcome {
        if isRejected, phase == .open {
            phase = .aborted
            let named =
                steps.substances
                + (refused ?? []).filter { substance in
                    !steps.substances.contains { $0 === substance }
                }
            return MixOutcome(
                entries: named.map { MixOutcome.Entry(substance: $0, result: .aborted) }, label: mixName.name)
        }
        guard let first = resolve(.reacted), let bus else {
            return MixOutcome(entries: [], label: mixName.name)
        }
        // An active receipt makes substances compute their changes even with nothing bound; the
        // outcome crosses back to this task through the receipt's lock.
        let receipt = FluxReceipt()
        await receipt.await(on: bus, mix: mixName, origin: FluxOrigin(fileID: fileID, line: line, function: function)) {
            ChainReaction.run(from: first)
        }
        return MixOutcome(receipt: receipt, label: mixName.name)
    }

    /// Discards the chain: nothing runs, nothing reacts.
    public func abort() {
        _ = resolve(.aborted)
    }

    /// Resolves the chain, if this call is the first to: reacted, returns its first step, which
    /// holds the others, taken out of it (the chain has no use for them any more); aborted, drops
    /// them. Nil when there is nothing to run: aborted, rejected (its refusal was reported where
    /// it happened), without steps, or already resolved (reported). Inlined: a call of its own
    /// was a share of what resolving costs (scenario S6).
    @inline(__always)
    private func resolve(_ phase: Phase) -> ChainStep? {
        guard self.phase == .open else {
            (bus ?? .current).report(
                .chainResolvedTwice, "a chain reaction was resolved twice; the second call was ignored")
            return nil
        }
        self.phase = phase
        let first = steps.takeFirst()
        return phase == .reacted && !isRejected ? first : nil
    }
}
