import Archive
import FluxBus

/// What an awaited mix did: for each substance that ran a mixer (or a chain step), whether it
/// committed changes, committed nothing, or aborted.
///
/// ```swift
/// let outcome = await Flask.apply(SessionMixers.login, payload: ["user": "ada"])
/// if outcome.wasAborted {
///     // ...
/// }
/// for changes in outcome.changes { print(changes.keys) }
/// ```
public struct MixOutcome: Sendable {
    /// One substance's part in the mix.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The substance.
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

    /// An outcome of the given substances' parts.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// The changes committed, one per substance that changed.
    public var changes: [SubstanceChanges] {
        entries.compactMap { if case .committed(let changes) = $0.result { changes } else { nil } }
    }

    /// Suspends until every state this mix changed is stored, for the substances that archive
    /// (see ``Substance/stored()``), or throws the first problem: what a server awaits before it
    /// acknowledges a request, so that a crash loses nothing acknowledged.
    ///
    /// ```swift
    /// try await Flask.apply(Login(user: "ada")).stored()
    /// ```
    public func stored() async throws(ArchiveProblem) {
        for entry in entries {
            guard case .committed = entry.result, let substance = entry.substance as? any StoredSubstance else {
                continue
            }
            try await substance.stored()
        }
    }

    /// Whether any substance aborted.
    public var wasAborted: Bool {
        entries.contains { if case .aborted = $0.result { true } else { false } }
    }

    /// Whether no substance received the mix (no reactive substance defines the mixer).
    public var reachedNobody: Bool { entries.isEmpty }

    /// The outcome recorded in a receipt of `Flux.dispatchAndWait(_:payload:isolation:)`.
    public init(receipt: FluxReceipt) {
        self.entries = receipt.records.compactMap(Entry.unboxed)
    }
}

extension MixOutcome.Entry {
    /// The entry in `record`, if it holds one: a comparison of types and a copy, where `as?` would
    /// go through the runtime's general cast, on the bus, for every mix a journal records.
    static func unboxed(_ record: any Sendable) -> MixOutcome.Entry? {
        func open<T>(_ value: T) -> MixOutcome.Entry? {
            T.self == MixOutcome.Entry.self ? unsafeBitCast(value, to: MixOutcome.Entry.self) : nil
        }
        return open(record)
    }
}
