import Archive
@_spi(FlaskInternals) import FluxBus

/// What an awaited mix did: whether a middleware stopped it, and for each substance that ran a
/// mixer (or a chain step), whether it committed changes, committed nothing, or aborted.
///
/// Acknowledge only a mix that applied (``wasApplied``): a stopped mix, an aborted one and one
/// that reached no substance changed nothing.
///
/// ```swift
/// let outcome = await Flask.apply(SessionMixers.login, payload: ["user": "ada"])
/// guard outcome.wasApplied else {
///     // stopped (outcome.stop says by whom and why), aborted, or no substance defines the mixer
///     return
/// }
/// for changes in outcome.changes { print(changes.keys) }
/// ```
///
/// An outcome holds the substances it names (``Entry/substance``), and its changes hold their old
/// and new states: keep it no longer than you read it. A substance whose last other reference
/// goes lives on while an outcome is kept (its archive key stays claimed, so a substance made
/// again under that key is refused as a second owner until the outcome goes).
public struct MixOutcome: Sendable {
    /// One substance's part in the mix.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The substance, held as long as the entry is (see ``MixOutcome``).
        public let substance: any AnySubstance
        /// How its transaction ended.
        public let result: Result
        /// How many observers the commit was delivered to: reactors and tools (an undo history, a
        /// change stream, a view's observation).
        public let observersNotified: Int
        /// How many of them are reactors.
        public let reactorsNotified: Int

        /// A substance's part in a mix. `reactorsNotified` is `observersNotified` when nil.
        public init(
            substance: any AnySubstance, result: Result, observersNotified: Int = 0, reactorsNotified: Int? = nil
        ) {
            self.substance = substance
            self.result = result
            self.observersNotified = observersNotified
            self.reactorsNotified = reactorsNotified ?? observersNotified
        }

        /// The substance's name.
        public var receiverName: String { substance.name() }

        /// The keys its commit changed, parents included; empty when nothing changed or it aborted.
        public var changedKeys: [String] {
            if case .committed(let changes) = result { changes.keys } else { [] }
        }

        /// Whether its transaction was aborted.
        public var aborted: Bool {
            if case .aborted = result { true } else { false }
        }

        /// What a mix log writes of it: `session: user (1 reactor)`, with the other observers counted
        /// apart (`notes: text (2 reactors, 1 tool)`), `session: aborted`, or nothing when it
        /// changed nothing.
        public var description: String {
            if aborted { return "\(receiverName): aborted" }
            let keys = changedKeys
            guard !keys.isEmpty else { return "" }
            var counts = "\(reactorsNotified) \(reactorsNotified == 1 ? "reactor" : "reactors")"
            let tools = observersNotified - reactorsNotified
            if tools > 0 { counts += ", \(tools) \(tools == 1 ? "tool" : "tools")" }
            return "\(receiverName): \(keys.joined(separator: ", ")) (\(counts))"
        }
    }

    /// How one substance's transaction ended.
    public enum Result: Sendable {
        /// Committed, with these changes.
        case committed(SubstanceChanges)
        /// Committed, but nothing observable changed.
        case unchanged
        /// Aborted (by `abort()`, or because the mixer resolved nothing): the state is as it was.
        case aborted
    }

    /// Every substance's part, in the order they ran.
    public let entries: [Entry]
    /// Set when a middleware stopped the mix (its name and reason): then no substance ran it.
    public let stop: FluxMixReport.Stop?
    /// The mix's name in reports, for a chain reaction: its label (`ChainReaction(label:)`), or
    /// `chain`; nil for a dispatch, whose mixer or action names it.
    public let label: String?

    /// An outcome of the given substances' parts, or of a mix that `stop` stopped; `label` names a
    /// chain's.
    public init(entries: [Entry], stop: FluxMixReport.Stop? = nil, label: String? = nil) {
        self.entries = entries
        self.stop = stop
        self.label = label
    }

    /// The changes committed, one per substance that changed.
    public var changes: [SubstanceChanges] {
        entries.compactMap { if case .committed(let changes) = $0.result { changes } else { nil } }
    }

    /// Suspends until every state this mix changed is stored, for the substances that archive
    /// (see ``Substance/stored()``), or throws the first problem: what a server awaits before it
    /// acknowledges a request, so that a crash loses nothing acknowledged. A substance whose
    /// commit changed nothing a reaction sees (``Result/unchanged``: its `_` properties, say,
    /// which are archived all the same) is waited for too.
    ///
    /// ```swift
    /// try await Flask.apply(Login(user: "ada")).stored()
    /// ```
    ///
    /// A mix that did not apply (``wasApplied`` is false) throws `ArchiveProblem.Kind.notApplied`
    /// rather than returning as if it had been stored: there is nothing to acknowledge.
    public func stored() async throws(ArchiveProblem) {
        if !wasApplied {
            throw ArchiveProblem(key: "", kind: .notApplied, reason: notAppliedReason)
        }
        for entry in entries {
            // A commit that changed nothing a reaction sees (`unchanged`) may still have changed
            // what is archived (`_` properties): its write is waited for too.
            if case .aborted = entry.result { continue }
            guard let substance = entry.substance as? any StoredSubstance else { continue }
            try await substance.stored()
        }
    }

    /// Whether any substance aborted.
    public var wasAborted: Bool {
        entries.contains { if case .aborted = $0.result { true } else { false } }
    }

    /// Whether a middleware stopped the mix (``stop`` says which, and why).
    public var wasStopped: Bool { stop != nil }

    /// Whether no substance received the mix (no reactive substance defines the mixer, or a
    /// middleware stopped it).
    public var reachedNobody: Bool { entries.isEmpty }

    /// Whether the mix applied: not stopped, not aborted, and received by at least one substance.
    /// The one test a server needs before it acknowledges a request.
    public var wasApplied: Bool { stop == nil && !reachedNobody && !wasAborted }

    /// Why the mix did not apply, for ``stored()``'s error.
    private var notAppliedReason: String {
        if let stop { return "stopped by \(stop.middleware): \(stop.reason)" }
        if wasAborted { return "aborted" }
        return "no substance received it"
    }

    /// The outcome recorded in a receipt of `Flux.dispatchAndWait(_:payload:isolation:)`, or of a
    /// chain named `label`.
    public init(receipt: FluxReceipt, label: String? = nil) {
        self.entries = receipt.records.compactMap(Entry.of)
        self.stop = receipt.stop
        self.label = label
    }
}

extension FluxMixReport {
    /// Calls `body` with each substance's part in the mix, in the order they ran: for a middleware
    /// that copies what it needs of them (a journal, a diff printer) and keeps nothing else. Read
    /// this way, a commit's changes are not told that someone kept them (``commits`` tells them),
    /// which spares a copy of the new state per commit: read them inside `body` only.
    public func forEachOutcome(_ body: (MixOutcome.Entry) throws -> Void) rethrows {
        for record in recordsReadInPlace {
            if let entry = MixOutcome.Entry.of(record) { try body(entry) }
        }
    }
}

extension MixOutcome.Entry {
    /// `record` as an entry, if it is one: the same as `record as? MixOutcome.Entry`, with the
    /// record's type opened first, so that the runtime's cast starts from that type rather than
    /// from the existential (half of what a journal paid per mix to read its report's outcomes,
    /// scenario S1j).
    @inline(__always)
    static func of(_ record: any Sendable) -> Self? {
        func cast<Record>(_ record: Record) -> Self? { record as? Self }
        return cast(record)
    }
}

extension Flux {
    /// Runs `work` on the bus as a mix of its own named `label` (a task: a replay, a restore, a jump
    /// in time) and returns once middleware have seen it, with what each substance did: a
    /// substance whose state `work` replaced (``Substance/replaceState(with:lock:source:)``)
    /// delivers its commit to observers and reactors as any mix does. Returns an empty outcome if
    /// the bus was purged before `work` ran.
    public func performAndWait(
        mix label: FluxMixerName, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function, _ work: @escaping @Sendable () -> Void
    ) async -> MixOutcome {
        let receipt = FluxReceipt()
        let origin = FluxOrigin(fileID: fileID, line: line, function: function)
        await receipt.await(on: self, mix: label, origin: origin, work)
        return MixOutcome(receipt: receipt, label: label.description)
    }
}
