import FluxBus
import Substances

extension MixJournal {
    /// What a jump in time did: see ``MixJournal/travel(_:to:substances:on:fileID:line:function:)``.
    public struct Travel: Sendable, Equatable {
        /// The substances that took their state after the mix.
        public let moved: [String]
        /// The substances given that were left as they are, and why: no such mix kept, no state
        /// recorded, an archived substance (a jump never writes a past state to an archive), or a
        /// recorded state that no longer decodes as the state type.
        public let left: [String: String]
    }

    /// Sets the substances given to their states after the mix numbered `serial`
    /// (``Document/states(afterKept:)``: serial 0 is before the first mix kept), as one task mix
    /// named `travel` that observers and reactors receive like any other commit, so that the app's
    /// views follow; a journal records it as such a task (``Entry/isTravel``), dispatched from
    /// where this was called (`fileID`, `line`, `function`: leave the defaults). Returns once it
    /// has run.
    ///
    /// A substance that archives (`shouldArchive`) is left as it is: its archive would store the
    /// past state as the app's own. Secret keys and `_` properties, which a journal does not
    /// record, keep the substance's present values.
    ///
    /// ```swift
    /// let document = journal.document
    /// let travel = await MixJournal.travel(document, to: 3, substances: [todos], on: bus)
    /// print(travel.moved)  // ["todos"]
    /// ```
    public static func travel(
        _ document: Document, to serial: UInt64, substances: [any AnySubstance], on bus: Flux,
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> Travel {
        guard let states = document.states(afterKept: serial) else {
            let left = substances.map { ($0.name(), "the journal keeps no mix #\(serial)") }
            return Travel(moved: [], left: Dictionary(left, uniquingKeysWith: { first, _ in first }))
        }
        var targets: [(any EncodedStateApplying, JournalValue)] = []
        var left: [String: String] = [:]
        for substance in substances {
            let name = substance.name()
            guard let target = substance as? any EncodedStateApplying else {
                left[name] = "its state is not Codable"
                continue
            }
            guard let state = states[name] else {
                left[name] = "the journal has no state of it"
                continue
            }
            if target.archives {
                left[name] = "it archives its state"
                continue
            }
            targets.append((target, state))
        }
        let failed = LockedValue<[String]>([])
        if !targets.isEmpty {
            _ = await bus.performAndWait(mix: travelLabel, fileID: fileID, line: line, function: function) {
                [targets] in
                for (target, state) in targets where !target.applyStartState(state) {
                    failed.withLock { $0.append(target.name()) }
                }
            }
        }
        for name in failed.withLock({ $0 }) { left[name] = "its recorded state does not decode" }
        let moved = targets.map { $0.0.name() }.filter { left[$0] == nil }
        return Travel(moved: moved, left: left)
    }

    /// The label of a jump's task mix.
    static let travelLabel: FluxMixerName = "travel"
}

extension MixJournal.Entry {
    /// Whether the mix was a jump in time: the task mix that
    /// ``MixJournal/travel(_:to:substances:on:fileID:line:function:)`` runs.
    public var isTravel: Bool { kind == .task && mixer == MixJournal.travelLabel.name }
}
