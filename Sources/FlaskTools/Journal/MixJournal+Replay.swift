import FluxBus
import Foundation
import Substances

extension MixJournal {
    /// What a replay did, and where it did not reproduce the recording.
    public struct Replay: Sendable, CustomStringConvertible {
        /// A mix whose changes differ from the recorded ones: other substances or keys, or a key
        /// that got another value.
        public struct Divergence: Sendable, CustomStringConvertible {
            /// The mix's serial in the recording.
            public let serial: UInt64
            /// The mixer's full name.
            public let mixer: String
            /// What the substances did when it was recorded.
            public let recorded: [Change]
            /// What they did when it was replayed.
            public let replayed: [Change]
            /// The keys that changed in both, but to other values.
            public let values: [ValueDivergence]

            public var description: String {
                if !values.isEmpty, recorded.map(\.keys) == replayed.map(\.keys) {
                    return "mix #\(serial) \(mixer): " + values.map(\.description).joined(separator: "; ")
                }
                return "mix #\(serial) \(mixer): " + (firstDifference.map { "\($0); " } ?? "")
                    + "recorded [\(recorded.map(\.description).joined(separator: "; "))]"
                    + ", replayed [\(replayed.map(\.description).joined(separator: "; "))]"
            }

            /// The first key changed in one and not the other, with its values on each side (when
            /// values were recorded): `counter: recorded 1 → 2, replayed (unchanged)`.
            public var firstDifference: String? {
                for substance in Set(recorded.map(\.substance) + replayed.map(\.substance)).sorted() {
                    let mine = recorded.first { $0.substance == substance }
                    let theirs = replayed.first { $0.substance == substance }
                    let recordedKeys = mine?.keys ?? []
                    let replayedKeys = theirs?.keys ?? []
                    guard
                        let key =
                            (recordedKeys.filter { !replayedKeys.contains($0) }
                            + replayedKeys.filter { !recordedKeys.contains($0) }).first
                    else { continue }
                    func side(_ change: Change?) -> String {
                        guard let change, change.keys.contains(key) else { return "(unchanged)" }
                        guard let value = change.values?.first(where: { $0.key == key }) else { return "(changed)" }
                        return
                            "\(value.oldExists ? "\(value.old)" : "(none)") → \(value.newExists ? "\(value.new)" : "(none)")"
                    }
                    return "\(substance).\(key): recorded \(side(mine)), replayed \(side(theirs))"
                }
                return nil
            }
        }

        /// A key that got another value when replayed than when recorded.
        public struct ValueDivergence: Sendable, Equatable, CustomStringConvertible {
            /// The substance's name.
            public let substance: String
            /// The dotted key.
            public let key: String
            /// Its new value in the recording.
            public let recorded: JournalValue
            /// Its new value in the replay.
            public let replayed: JournalValue

            public var description: String { "\(substance).\(key) recorded \(recorded), replayed \(replayed)" }
        }

        /// A mix the replay could not run, and why.
        public struct Skip: Error, CustomStringConvertible {
            /// The mix's serial in the recording.
            public let serial: UInt64
            /// The mixer's full name.
            public let mixer: String
            /// Why it could not run again.
            public let reason: String

            public var description: String { "mix #\(serial) \(mixer) skipped: \(reason)" }
        }

        /// How many mixes were run again.
        public let replayed: Int
        /// The mixes that could not run again, and why.
        public let skipped: [Skip]
        /// The mixes whose changes differ from the recorded ones.
        public let divergences: [Divergence]

        /// Whether every mix ran again and changed the same keys of the same substances, each to
        /// the value it was recorded with (when the journal recorded values).
        public var reproducesRecording: Bool { skipped.isEmpty && divergences.isEmpty }

        public var description: String {
            var lines = ["replayed \(replayed) mixes, \(skipped.count) skipped, \(divergences.count) diverged"]
            lines += skipped.map { "  \($0)" } + divergences.map { "  \($0)" }
            return lines.joined(separator: "\n")
        }
    }

    /// Replays this journal from its starting states: see
    /// `replay(_:on:domains:substances:)` (of a `Document`).
    public func replay(
        on bus: Flux, domains: [any Any.Type] = [], substances: [any AnySubstance] = []
    ) async -> Replay {
        await MixJournal.replay(document, on: bus, domains: domains, substances: substances)
    }

    /// Replays a journal from its starting states: each substance given (by name) first takes
    /// the state the journal started from (secret keys and `_` properties keep the substance's own
    /// values), so that a journal recorded after a restore from the archive replays with nothing
    /// to set up; then the entries replay as `replay(_:on:domains:substances:)` of entries
    /// does (which gives a substance made again under a known name, `Change.start`, that state
    /// where it starts again). A substance without a starting state keeps its own, and a state
    /// for a name none of `substances` has is not applied.
    ///
    /// ```swift
    /// let document = try MixJournal.Document(jsonLines: recorded)
    /// let result = await MixJournal.replay(document, on: bus, domains: [TodoMixers.self], substances: [todos])
    /// print(result.reproducesRecording ? "same" : "\(result)")
    /// ```
    public static func replay(
        _ document: Document, on bus: Flux, domains: [any Any.Type] = [], substances: [any AnySubstance] = []
    ) async -> Replay {
        let skipped = await applyStarts(document.startStates, serial: 0, on: bus, substances: substances)
        let replay = await replay(document.entries, on: bus, domains: domains, substances: substances)
        return Replay(replayed: replay.replayed, skipped: skipped + replay.skipped, divergences: replay.divergences)
    }

    /// Gives each of `substances` named in `states` that state (secret keys and `_` properties
    /// keep the substance's own values), as a mix of its own; what does not decode is skipped,
    /// reported at `serial`.
    private static func applyStarts(
        _ states: [String: JournalValue], serial: UInt64, on bus: Flux, substances: [any AnySubstance]
    ) async -> [Replay.Skip] {
        var skipped: [Replay.Skip] = []
        var starts: [(any EncodedStateApplying, JournalValue)] = []
        for name in Set(substances.map { $0.name() }).sorted() {
            guard let state = states[name] else { continue }
            switch target(named: name, in: substances) {
            case .success(let target): starts.append((target, state))
            case .failure(let reason) where reason.cannotTakeStates: continue
            case .failure(let reason):
                skipped.append(Replay.Skip(serial: serial, mixer: "replay start", reason: reason.text))
            }
        }
        guard !starts.isEmpty else { return skipped }
        let failed = LockedValue<[String]>([])
        _ = await bus.performAndWait(mix: "replay start") { [starts] in
            for (target, state) in starts where !target.applyStartState(state) {
                failed.withLock { $0.append(target.name()) }
            }
        }
        return skipped
            + failed.withLock({ $0 }).map { name in
                Replay.Skip(
                    serial: serial, mixer: "replay start", reason: "the starting state of \(name) does not decode")
            }
    }

    /// Runs recorded mixes again, in order, each awaited before the next, and compares what each
    /// changed with the recording.
    ///
    /// Mixers are dispatched again by name with their payload (exclusive mixes as plain mixes,
    /// without a lock): fresh substances with the same names, defining the same mixers, reproduce
    /// the same states if the mixers depend only on state and payload. Tasks (chain reactions,
    /// rollbacks, undo) are replayed by applying the states the journal recorded to the substances
    /// you pass with the same names. Mixes a middleware stopped are not run.
    ///
    /// Give the substances the names they had when recording (unnamed substances get a new number
    /// in each process). Replay into substances whose reactors do not dispatch further mixes: those
    /// were recorded as mixes of their own, and would otherwise run twice.
    ///
    /// - Parameters:
    ///   - entries: the entries, from ``entries`` or ``entries(fromJSONLines:)``.
    ///   - bus: the bus of the fresh substances.
    ///   - domains: the mixer enumerations and action types used (`[SessionMixers.self,
    ///     Login.self]`), to find mixers by name; an action replays from its recorded fields when
    ///     its type is `Decodable`.
    ///   - substances: the substances that tasks (chains, rollbacks, undo) changed.
    public static func replay(
        _ entries: [Entry], on bus: Flux, domains: [any Any.Type] = [], substances: [any AnySubstance] = []
    ) async -> Replay {
        var replayed = 0
        var skipped: [Replay.Skip] = []
        var divergences: [Replay.Divergence] = []
        for entry in entries where entry.stop == nil {
            // A substance made again under a known name starts again from its own state.
            let restarts = Dictionary(
                entry.changes.compactMap { change in change.start.map { (change.substance, $0) } },
                uniquingKeysWith: { $1 })
            if !restarts.isEmpty {
                skipped += await applyStarts(restarts, serial: entry.serial, on: bus, substances: substances)
            }
            let result: Result<[Change], Replay.Skip>
            switch entry.kind {
            case .mixer, .exclusiveMixer:
                result = await replayMixer(entry, on: bus, domains: domains)
            case .task:
                result = await replayTask(entry, on: bus, substances: substances)
            }
            switch result {
            case .failure(let skip):
                skipped.append(skip)
            case .success(let changes):
                replayed += 1
                // A substance that changed nothing (a chain's step that left it as it was) is no
                // difference: recorded with no keys, it is not in the replay's outcome of a task.
                // A secret key is not compared: the journal holds no value of it, and a replayed
                // task keeps the substance's own (see `withoutSecretKeys`).
                let recorded = entry.changes.map(\.withoutSecretKeys).filter(\.counts).sorted {
                    $0.substance < $1.substance
                }
                let again = changes.map(\.withoutSecretKeys).filter(\.counts).sorted { $0.substance < $1.substance }
                // Keys as sets: their order follows the shape of the change (a secret left out of
                // one side leaves its parents in another order).
                let sameKeys =
                    recorded.map { ($0.substance, $0.keys.sorted(), $0.aborted) }.elementsEqual(
                        again.map { ($0.substance, $0.keys.sorted(), $0.aborted) }, by: ==)
                let values = sameKeys ? valueDivergences(recorded, again) : []
                if !sameKeys || !values.isEmpty {
                    divergences.append(
                        Replay.Divergence(
                            serial: entry.serial, mixer: entry.mixerDescription, recorded: recorded, replayed: again,
                            values: values))
                }
            }
        }
        return Replay(replayed: replayed, skipped: skipped, divergences: divergences)
    }

    /// Dispatches a recorded mix again, by name with its recorded payload or action, and returns
    /// once it has run: what a live view's "again" does. Returns why it could not, as a replay
    /// would say it: a task (a chain, a rollback, a jump) is not dispatched again, nor a mix whose
    /// action or payload has secret fields (their values are redacted in the journal, and are not
    /// re-applied from memory either), and a mixer whose domain is not among `domains` is not
    /// found.
    ///
    /// - Parameters:
    ///   - entry: the recorded mix, from ``entries`` or a ``Document``.
    ///   - bus: the bus to dispatch on.
    ///   - domains: the mixer enumerations and action types the mix may name.
    ///   - fileID: the file the new mix says it was dispatched from: leave the default.
    ///   - line: the line it says it was dispatched from: leave the default.
    ///   - function: the function it says it was dispatched from: leave the default.
    public static func dispatchAgain(
        _ entry: Entry, on bus: Flux, domains: [any Any.Type], fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) async -> Replay.Skip? {
        guard entry.kind != .task else { return skip(entry, "a task is not dispatched again") }
        guard entry.stop == nil else { return skip(entry, "a middleware stopped it") }
        // What the journal redacted is not dispatched again, even where the journal kept the live
        // value in memory: no one who reads the journal re-applies a secret they cannot read.
        if entry.action?.containsRedacted == true || entry.payload?.values.contains(where: \.containsRedacted) == true {
            return skip(entry, "it carries secret fields (secretKeys), which are not dispatched again")
        }
        let result = await replayMixer(entry, on: bus, domains: domains, fileID: fileID, line: line, function: function)
        if case .failure(let skip) = result { return skip }
        return nil
    }

    /// The keys whose new values differ between a recording and its replay, for the substances
    /// whose values the recording has (the same substances and keys, in the same order).
    private static func valueDivergences(_ recorded: [Change], _ replayed: [Change]) -> [Replay.ValueDivergence] {
        var divergences: [Replay.ValueDivergence] = []
        for (recorded, replayed) in zip(recorded, replayed) {
            guard let recordedValues = recorded.values, let replayedValues = replayed.values else { continue }
            let again = Dictionary(replayedValues.map { ($0.key, $0.new) }, uniquingKeysWith: { $1 })
            for value in recordedValues {
                let replayedValue = again[value.key] ?? .null
                // Secrets inside a value are not compared either: the recording holds none.
                if !value.new.droppingRedactedKeys.isSame(as: replayedValue.droppingRedactedKeys) {
                    divergences.append(
                        Replay.ValueDivergence(
                            substance: recorded.substance, key: value.key, recorded: value.new,
                            replayed: replayedValue))
                }
            }
        }
        return divergences
    }

    /// The action of type `type` that `recorded` holds, if the type is `Decodable`.
    private static func decodeAction(_ type: any Any.Type, from recorded: JournalValue) -> (any Sendable)? {
        guard let decodable = type as? any (FlaskAction & Decodable).Type, let data = recorded.jsonData else {
            return nil
        }
        let action: (any FlaskAction & Decodable)? = try? JSONDecoder().decode(decodable, from: data)
        return action
    }

    private static func replayMixer(
        _ entry: Entry, on bus: Flux, domains: [any Any.Type], fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) async -> Result<[Change], Replay.Skip> {
        var name = FluxMixerName(entry.mixer)
        if let domain = entry.domain {
            guard let type = domains.first(where: { "\($0)" == domain }) else {
                return .failure(skip(entry, "its mixer domain \(domain) is not among the domains given"))
            }
            name = FluxMixerName(entry.mixer, domain: type)
        }
        var payload = entry.livePayload
        if payload == nil, let recorded = entry.payload {
            guard recorded.values.allSatisfy(\.isRepresentable) else {
                return .failure(skip(entry, "its payload holds values that were not recorded"))
            }
            payload = recorded.mapValues(\.value)
        }
        if entry.isAction, let type = name.domain {
            // The value is needed, even of a type without stored properties: the library never
            // makes a value of a user's type up.
            if entry.liveAction == nil, entry.action?.containsRedacted == true {
                return .failure(
                    skip(entry, "its action \(type) has secret fields (secretKeys) the journal did not record"))
            }
            guard let action = entry.liveAction ?? entry.action.flatMap({ decodeAction(type, from: $0) }) else {
                return .failure(skip(entry, "its action \(type) was not recorded, or does not decode as Decodable"))
            }
            let receipt = await bus.dispatchAndWait(
                name, payload: payload, value: action, fileID: fileID, line: line, function: function)
            return .success(MixOutcome(receipt: receipt).entries.map(Change.init))
        }
        let receipt = await bus.dispatchAndWait(name, payload: payload, fileID: fileID, line: line, function: function)
        return .success(MixOutcome(receipt: receipt).entries.map(Change.init))
    }

    private static func replayTask(
        _ entry: Entry, on bus: Flux, substances: [any AnySubstance]
    ) async -> Result<[Change], Replay.Skip> {
        guard entry.changes.contains(where: { !$0.keys.isEmpty }) else { return .success(entry.changes) }
        // What each substance is to take: the state recorded whole (journals of earlier versions,
        // or `recordsStates`), else the changes recorded, applied to its state.
        var targets: [(any EncodedStateApplying, TaskReplay)] = []
        if let states = entry.states {
            for (name, data) in states.sorted(by: { $0.key < $1.key }) {
                switch target(named: name, in: substances) {
                case .success(let target): targets.append((target, .state(data)))
                case .failure(let reason): return .failure(skip(entry, reason.text))
                }
            }
        } else {
            for change in entry.changes where !change.aborted && !change.keys.isEmpty {
                guard let values = change.values else {
                    return .failure(skip(entry, "the journal did not record the values this task changed"))
                }
                // A secret value is applied as redacted, and the substance's own put back in its
                // place (as for a state recorded whole); a cut value cannot be applied.
                if values.contains(where: \.cut) {
                    return .failure(
                        skip(entry, "a value it changed in \(change.substance) was cut to the journal's limit"))
                }
                switch target(named: change.substance, in: substances) {
                case .success(let target): targets.append((target, .changes(values)))
                case .failure(let reason): return .failure(skip(entry, reason.text))
                }
            }
        }
        let failed = LockedValue<[String]>([])
        let outcome = await bus.performAndWait(mix: FluxMixerName(entry.mixer)) { [targets] in
            for (target, replay) in targets {
                let applied =
                    switch replay {
                    case .state(let data): target.applyEncodedState(data)
                    case .changes(let values): target.applyKeyChanges(values)
                    }
                if !applied { failed.withLock { $0.append(target.name()) } }
            }
        }
        if let name = failed.withLock({ $0.first }) {
            return .failure(skip(entry, "the recorded state of \(name) does not decode as its state type"))
        }
        return .success(outcome.entries.map(Change.init))
    }

    /// The one substance of `substances` named `name`, which a replayed task applies its changes
    /// to; why there is none: no substance of that name, or two (a replay finds substances by name,
    /// and cannot tell which of two a recorded change was for).
    private static func target(
        named name: String, in substances: [any AnySubstance]
    ) -> Result<any EncodedStateApplying, NoTarget> {
        let named = substances.filter { $0.name() == name }
        guard named.count < 2 else {
            return .failure(
                NoTarget(text: "\(named.count) substances named \(name) were given, where a replay needs one"))
        }
        guard let substance = named.first else {
            return .failure(NoTarget(text: "no substance named \(name) was given"))
        }
        guard let target = substance as? any EncodedStateApplying else {
            return .failure(
                NoTarget(text: "\(name) is no Substance, and takes no recorded state", cannotTakeStates: true))
        }
        return .success(target)
    }

    /// Why a replayed task has no substance to apply a change to.
    private struct NoTarget: Error {
        let text: String
        /// The one substance of the name is no `Substance`: it takes no recorded state.
        var cannotTakeStates = false
    }

    private static func skip(_ entry: Entry, _ reason: String) -> Replay.Skip {
        Replay.Skip(serial: entry.serial, mixer: entry.mixerDescription, reason: reason)
    }
}

extension MixJournal.Change {
    /// Whether it did something a replay compares: changed keys, or aborted.
    var counts: Bool { aborted || !keys.isEmpty }

    /// The change without its secret keys (`State.secretKeys`: the keys whose values the journal
    /// recorded redacted), and without the parents of no other changed key: what a replay
    /// compares. A replayed task keeps the secrets of the substance it replays into, so its
    /// outcome has none of them; a mix dispatched again may change them, which a replay cannot
    /// check either. Unchanged when values were not recorded, or when none is secret.
    var withoutSecretKeys: MixJournal.Change {
        // The secret keys: a value recorded redacted, or a place inside a value recorded whole (an
        // optional that appears, an entry added) where it holds a redacted one.
        guard let values,
            case let secret = Set(values.flatMap { $0.old.redactedKeys(at: $0.key) + $0.new.redactedKeys(at: $0.key) }),
            !secret.isEmpty
        else { return self }
        let plain = values.filter { $0.old != .redacted && $0.new != .redacted }
        // A key stays when it is no secret (nor below one) and goes with a value that is no
        // secret: the value's own key, a parent of it, or a key inside a value recorded whole
        // (an entry added is recorded as one value, its keys below it). Looked up by parents, so
        // that a mix of many keys costs their number.
        let plainKeys = Set(plain.map(\.key))
        var plainParents: Set<String> = []
        for key in plainKeys { DottedKey.forEachParent(of: key) { plainParents.insert($0) } }
        let keptKeys = keys.filter { key in
            !secret.contains(key) && !DottedKey.hasParent(of: key, in: secret)
                && (plainKeys.contains(key) || plainParents.contains(key)
                    || DottedKey.hasParent(of: key, in: plainKeys))
        }
        return MixJournal.Change(substance: substance, keys: keptKeys, values: plain, aborted: aborted, start: start)
    }

    /// What a receiver recorded of a mix, as the journal keeps it, values included.
    init(_ record: MixOutcome.Entry) {
        var values: [KeyChange]? = nil
        if case .committed(let changes) = record.result {
            values = changes.journalKeyChanges(limit: MixJournal.valueLimit)
        }
        self.init(substance: record.receiverName, keys: record.changedKeys, values: values, aborted: record.aborted)
    }
}

extension JournalValue {
    /// Whether two values are the same, a NaN the same as a NaN.
    func isSame(as other: JournalValue) -> Bool {
        switch (self, other) {
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        // A whole double recorded by an earlier version as an integer (`5`) is the same number.
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Double(a) == b
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isSame(as: $1) }
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map(value.isSame(as:)) ?? false }
        default: self == other
        }
    }
}

/// What a replayed task gives a substance: a state recorded whole, or the changes recorded.
enum TaskReplay: Sendable {
    case state(Data)
    case changes([KeyChange])
}

/// A substance that can take a state recorded as JSON, as a mix (for journal replays).
protocol EncodedStateApplying: AnySubstance {
    /// Decodes `data` as the state type and commits it (on the bus); false if it does not decode.
    func applyEncodedState(_ data: Data) -> Bool
    /// Applies recorded changes to the committed state and commits the result (on the bus); false
    /// if the result does not decode as the state type.
    func applyKeyChanges(_ changes: [KeyChange]) -> Bool
    /// Commits the state recorded as a journal's starting state (on the bus); false if it does not
    /// decode.
    func applyStartState(_ state: JournalValue) -> Bool
    /// Whether the substance writes its state to an archive.
    var archives: Bool { get }
}

extension Substance: EncodedStateApplying {
    var archives: Bool { !archiveDisabled() }

    func applyEncodedState(_ data: Data) -> Bool {
        guard let recorded = try? JournalValue(plainJSON: data) else { return false }
        return applyStartState(recorded)
    }

    func applyKeyChanges(_ changes: [KeyChange]) -> Bool {
        var state = JournalValue(encoding: self.state)
        for change in changes { state.apply(change) }
        return applyStartState(state)
    }

    func applyStartState(_ recorded: JournalValue) -> Bool {
        // The journal left out secret keys and `_` properties: they keep this substance's values.
        // A secret with no value of its own here (below a value the state did not have: an
        // element appended, an entry added) is left out, for a type that decodes without it.
        guard let merged = recorded.stateJSON(over: state),
            let state = try? JournalValue.stateDecoder.decode(S.self, from: merged)
        else { return false }
        replaceState(with: state)
        return true
    }
}
