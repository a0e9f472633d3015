import FluxBus
import Foundation
import Substances

/// An opt-in record of every mix on a bus: the mixer and payload, which substances changed which
/// keys, how long it took, how many reactors were notified, which locks were held.
///
/// It is a `FluxMiddleware`: install it with `bus.use(journal)` and remove it when done; with no
/// journal installed the bus pays nothing for it. It keeps the last `capacity` entries and counts
/// the ones it dropped. Export it with ``jsonLines()``, read it back with
/// ``entries(fromJSONLines:)``, and replay it with `replay(_:on:domains:substances:)`.
///
/// ```swift
/// let journal = MixJournal(capacity: 1_000)
/// bus.use(journal)
/// // ... the app mixes ...
/// try journal.jsonLines().write(to: url, atomically: true, encoding: .utf8)
/// ```
///
/// Payload values are recorded (a replay needs them). To keep them out of the record, create the
/// journal with `recordsPayloadValues: false`: it then keeps keys and types, and such mixes are
/// not replayable.
public final class MixJournal: FluxMiddleware {
    /// One mix.
    public struct Entry: Sendable, Codable, CustomStringConvertible {
        /// The mix's number on its bus (see `FluxMixReport.serial`).
        public let serial: UInt64
        /// Whether it was a mixer, an exclusive mix or a task that mixes.
        public let kind: FluxMixReport.Kind
        /// The mixer's name (without its domain), or the task's label (`chain`, `rollback`, `undo`).
        public let mixer: String
        /// The name of the mixer's domain type (the `SubstanceMixer` enumeration), if any.
        public let domain: String?
        /// The payload, as JSON values.
        public let payload: [String: JournalValue]?
        /// The value dispatched with the mixer (a typed action), as JSON: its `Codable` fields, or
        /// its type when it is not `Codable`. Nil for none, and for an action without stored
        /// properties (its type, the ``domain``, is all there is to it).
        public let action: JournalValue?
        /// The mixer as dispatched, when a middleware replaced it.
        public let dispatchedMixer: String?
        /// Where the mix was dispatched from (a chain: where it was committed), when its dispatch
        /// said.
        public let origin: Origin?
        /// Set when a middleware stopped the mix.
        public let stop: Stop?
        /// What each substance did, in the order they ran.
        public let changes: [Change]
        /// How many observers of the mixer were called (the substances that define it, and observers
        /// added with `Flux.observe`).
        public let observersCalled: Int
        /// How many reactors the commits were delivered to.
        public let reactorsNotified: Int
        /// The serials of the locks open while the mix ran.
        public let locksHeld: [UInt64]
        /// How long the mix took on the bus, its reactions included, in microseconds.
        public let microseconds: Double
        /// When the mix ran (wall clock).
        public let date: Date
        /// The new states of the substances a task (chain, rollback, undo) changed, as JSON:
        /// a replay applies them, since a task's closures cannot be recorded.
        public let states: [String: Data]?
        /// For an undo or a redo (`SubstanceHistory`, the task `undo` or `redo`): the serials of
        /// the entries (this journal's mix numbers) whose step it took back or made again, oldest
        /// first; several when commits close together merged into one step (see
        /// `MixSource.historyStepCommits`, the same mixes by their commits' serials). Those the
        /// journal held when it recorded the undo: a mix dropped from the ring by then, or made
        /// before the journal was in use, is not named (and one named may be dropped since: the
        /// timeline page then says so). Empty for any other mix.
        public let historyStepMixes: [UInt64]

        /// The mixer's name as text, `Domain.name` (for a typed action, its type's name), without
        /// the values a case or structure holds (see `FluxMixerName.description`).
        public var mixerDescription: String {
            FluxMixerName.redacted(mixer, domain: domain)
        }

        /// One line without values: the serial, the mixer by type and case (as
        /// ``mixerDescription``), the mixes an undo or a redo takes back or makes again
        /// (``historyStepMixes``: `(undoes #2)`), and what each substance changed (`mix #3
        /// AuthMixers.login → account: user`). Payloads, actions and states are in the entry's
        /// properties, and in the JSON lines.
        public var description: String {
            var line = "mix #\(serial) \(kind == .task ? "task " : "")\(mixerDescription)"
            if kind == .exclusiveMixer { line += " exclusive" }
            if !historyStepMixes.isEmpty {
                line += " (\(historyStepVerb) " + historyStepMixes.map { "#\($0)" }.joined(separator: ", ") + ")"
            }
            if !changes.isEmpty { line += " → " + changes.map(\.description).joined(separator: "; ") }
            return line
        }

        /// What an undo does to the mixes of ``historyStepMixes`` (`undoes`), or a redo (`redoes`):
        /// the word the entry's line and the timeline page say it with.
        var historyStepVerb: String { mixer == "redo" ? "redoes" : "undoes" }

        /// Whether the mix was a typed action (its type is the ``domain``).
        public var isAction: Bool { mixer.isEmpty && domain != nil }

        /// The payload as the mixer saw it, when it was recorded in process (not exported: not
        /// among the coding keys).
        private(set) var livePayload: FluxPayload? = nil
        /// The action as dispatched, when it was recorded in process (not exported).
        private(set) var liveAction: (any Sendable)? = nil

        enum CodingKeys: String, CodingKey {
            case serial, kind, mixer, domain, payload, action, dispatchedMixer, origin, stop, changes, observersCalled
            case reactorsNotified, locksHeld, microseconds, date, states, historyStepMixes
        }

        /// Written as the JSON lines show it: each state as a JSON object in the line, not as
        /// Base64 (see ``MixJournal/jsonLines()``).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(serial, forKey: .serial)
            try container.encode(kind, forKey: .kind)
            try container.encode(mixer, forKey: .mixer)
            try container.encodeIfPresent(domain, forKey: .domain)
            try container.encodeIfPresent(payload, forKey: .payload)
            try container.encodeIfPresent(action, forKey: .action)
            try container.encodeIfPresent(dispatchedMixer, forKey: .dispatchedMixer)
            try container.encodeIfPresent(origin, forKey: .origin)
            try container.encodeIfPresent(stop, forKey: .stop)
            try container.encode(changes, forKey: .changes)
            try container.encode(observersCalled, forKey: .observersCalled)
            try container.encode(reactorsNotified, forKey: .reactorsNotified)
            try container.encode(locksHeld, forKey: .locksHeld)
            try container.encode(microseconds, forKey: .microseconds)
            try container.encode(date, forKey: .date)
            if let states {
                // A state that is not JSON (it cannot happen: the substance encoded it) stays Base64.
                let objects = states.mapValues { data -> StateJSON in
                    (try? JournalValue(plainJSON: data)).map(StateJSON.json) ?? .bytes(data)
                }
                try container.encode(objects, forKey: .states)
            }
            if !historyStepMixes.isEmpty { try container.encode(historyStepMixes, forKey: .historyStepMixes) }
        }

        /// Reads an entry of the JSON lines: states as JSON objects, or as Base64 (journals written
        /// before states were written as JSON).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            serial = try container.decode(UInt64.self, forKey: .serial)
            kind = try container.decode(FluxMixReport.Kind.self, forKey: .kind)
            mixer = try container.decode(String.self, forKey: .mixer)
            domain = try container.decodeIfPresent(String.self, forKey: .domain)
            payload = try container.decodeIfPresent([String: JournalValue].self, forKey: .payload)
            action = try container.decodeIfPresent(JournalValue.self, forKey: .action)
            dispatchedMixer = try container.decodeIfPresent(String.self, forKey: .dispatchedMixer)
            origin = try container.decodeIfPresent(Origin.self, forKey: .origin)
            stop = try container.decodeIfPresent(Stop.self, forKey: .stop)
            changes = try container.decode([Change].self, forKey: .changes)
            observersCalled = try container.decode(Int.self, forKey: .observersCalled)
            reactorsNotified = try container.decode(Int.self, forKey: .reactorsNotified)
            locksHeld = try container.decode([UInt64].self, forKey: .locksHeld)
            microseconds = try container.decode(Double.self, forKey: .microseconds)
            date = try container.decode(Date.self, forKey: .date)
            states = try container.decodeIfPresent([String: StateJSON].self, forKey: .states)?.mapValues(\.data)
            historyStepMixes = try container.decodeIfPresent([UInt64].self, forKey: .historyStepMixes) ?? []
        }

        /// A recorded state in a JSON line: a JSON value, or Base64 text in older journals.
        private enum StateJSON: Codable {
            case json(JournalValue)
            case bytes(Data)

            var data: Data {
                switch self {
                case .json(let value): value.jsonData ?? Data()
                case .bytes(let data): data
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .json(let value): try container.encode(value)
                case .bytes(let data): try container.encode(data)
                }
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                // Base64 text is a string; a state is an object (or, for a state that encodes as a
                // single value, anything else).
                if let text = try? container.decode(String.self), let data = Data(base64Encoded: text) {
                    self = .bytes(data)
                } else {
                    self = .json(try container.decode(JournalValue.self))
                }
            }
        }

        /// The entry of a mix recorded on the bus: its values are converted now, off the bus.
        init(_ recorded: Recorded, clock: JournalClock) {
            serial = recorded.serial
            kind = recorded.kind
            domain = recorded.mixer.domain.map { "\($0)" }
            // Without values, the name loses them too (a case's associated values, a structure's
            // fields): only the case or type is kept.
            // A case's associated values are a payload too: a domain that names secret payload keys
            // has them all redacted (they cannot be told apart by label in the case's description).
            let valuesAreSecret =
                recorded.mixer.name.contains("(")
                && ((recorded.mixer.domain as? any FluxPayloadSecrets.Type)?.secretPayloadKeys.isEmpty == false)
            if recorded.redacted == nil && !valuesAreSecret {
                mixer = recorded.mixer.name
            } else if valuesAreSecret, let domain {
                mixer = FluxMixerName.caseName(of: recorded.mixer.name, domain: domain) + "(<redacted>)"
            } else if let domain, !recorded.mixer.name.isEmpty {
                // A structure's description is its type's name and fields: its type's name is kept,
                // so that it is not taken for a typed action (whose mixer is empty).
                let caseName = FluxMixerName.caseName(of: recorded.mixer.name, domain: domain)
                mixer = caseName.isEmpty ? String(domain.split(separator: ".").last ?? "") : caseName
            } else {
                mixer = recorded.mixer.name
            }
            if let redacted = recorded.redacted {
                payload = redacted.payload
                action = redacted.action
            } else {
                // Secret fields redacted: an action's (`FlaskAction.secretKeys`), a mixer
                // enumeration's payload keys (`SubstanceMixer.secretPayloadKeys`).
                let payloadSecrets = (recorded.mixer.domain as? any FluxPayloadSecrets.Type).map { domain in
                    SecretKeys.of(domain, keys: domain.secretPayloadKeys)
                }
                payload = recorded.payload.map { payload in
                    let values = payload.mapValues { JournalValue($0) }
                    guard let payloadSecrets,
                        case .object(let kept) = JournalValue.object(values).redacting(payloadSecrets)
                    else { return values }
                    return kept
                }
                livePayload = recorded.payload
                action = recorded.value.map { value in
                    let encoded = JournalValue(encoding: value)
                    guard let action = value as? any FlaskAction else { return encoded }
                    let type = Swift.type(of: action)
                    return encoded.redacting(SecretKeys.of(type, keys: type.secretKeys))
                }
                liveAction = recorded.value
            }
            dispatchedMixer = recorded.dispatchedMixer?.description
            origin = recorded.origin.map(Origin.init)
            stop = recorded.stop
            changes = recorded.changes.all
            reactorsNotified = recorded.reactorsNotified
            observersCalled = recorded.observersCalled
            locksHeld = recorded.locksHeld
            let duration = recorded.duration.components
            microseconds = Double(duration.seconds) * 1e6 + Double(duration.attoseconds) / 1e12
            date = clock.date(of: recorded.startedAt)
            states = recorded.states
            historyStepMixes = recorded.historyStepMixes ?? []
        }
    }

    /// One mix as the bus records it: what it takes to make its ``Entry`` later. Converting values
    /// to JSON, naming types and keys, and reading clocks wait until the entries are read, so that
    /// a journal costs the bus as little as it can.
    ///
    /// A class: the journal's ring holds a reference per mix, so that recording one moves a
    /// pointer rather than copying a large value field by field (and the entry it replaces is
    /// freed in one go).
    final class Recorded: Sendable {
        let serial: UInt64
        let kind: FluxMixReport.Kind
        let mixer: FluxMixerName
        /// The payload and the value, kept as dispatched when the journal records values.
        let payload: FluxPayload?
        let value: (any Sendable)?
        /// When it does not: their keys and types, made now, so that no value is kept even in memory.
        let redacted: (payload: [String: JournalValue]?, action: JournalValue?)?
        let dispatchedMixer: FluxMixerName?
        let origin: FluxOrigin?
        let stop: FluxMixReport.Stop?
        /// What each substance did: names and changed plan entries, copied now (keeping the changes
        /// themselves would keep every recorded state alive); the keys are spelled when read.
        let changes: RecordedChanges
        let reactorsNotified: Int
        let observersCalled: Int
        let locksHeld: [UInt64]
        let startedAt: ContinuousClock.Instant
        let duration: Duration
        let states: [String: Data]?
        /// The bus's work item whose commits the mix made (``Commit/serial``; 0 for a mix that
        /// committed nothing): how an undo's step finds its entries.
        let item: UInt64
        /// For an undo or a redo, the serials of the entries of the mixes its step names (nil
        /// for any other mix: nothing to release when the entry goes).
        let historyStepMixes: [UInt64]?

        /// The states before this mix of the substances the journal sees here for the first time:
        /// where a rebuild of their states starts (see ``MixJournal/Document/startStates``).
        let starts: [(substance: String, state: JournalValue)]

        init(report: borrowing FluxMixReport, journal: MixJournal) {
            let recordsPayloadValues = journal.recordsPayloadValues
            let recordsStates = journal.recordsStates
            let recordsChangedValues = journal.recordsChangedValues
            let reportKind = report.kind
            serial = report.serial
            kind = reportKind
            mixer = report.mixer
            if recordsPayloadValues {
                payload = report.payload
                value = report.value
                redacted = nil
            } else {
                payload = nil
                value = nil
                redacted = (
                    report.payload?.mapValues { .unrepresentable(type: "\(type(of: $0))") },
                    report.value.map { .unrepresentable(type: "\(type(of: $0))") }
                )
            }
            dispatchedMixer = report.dispatchedMixer
            origin = report.origin
            stop = report.stop
            observersCalled = report.observersCalled
            locksHeld = report.locksHeld
            startedAt = report.startedAt
            duration = report.duration
            // Read in place: the journal keeps copied values (names, plan entries, encoded states),
            // never the changes themselves.
            var changes = RecordedChanges()
            var reactorsNotified = 0
            var states: [String: Data]? = nil
            var item: UInt64 = 0
            var historyItems: [UInt64]? = nil
            var starts: [(substance: String, state: JournalValue)] = []
            let recordsTaskStates = recordsStates && reportKind == .task
            report.forEachOutcome { entry in
                reactorsNotified += entry.reactorsNotified
                switch entry.result {
                case .committed(let committed):
                    let name = entry.receiverName
                    if item == 0 {
                        // Read from the mix's first commit, which its others share: its work item,
                        // and for an undo or a redo (a task, every commit of which restores a
                        // state of its step) the mixes it takes back or makes again.
                        let commit = Commit(changes: committed, lock: nil)
                        item = commit.serial
                        if reportKind == .task, case let step = commit.mix.historyStepCommits, !step.isEmpty {
                            historyItems = step
                        }
                    }
                    var values: [KeyChange]? = nil
                    var bits: ChangedBits? = nil
                    var restart: JournalValue? = nil
                    if recordsChangedValues {
                        // A number or a Boolean, the only key changed, is kept as its bits, and
                        // its values made when they are read (scenario S1j).
                        bits = committed.count == 1 ? committed.changedBits(at: 0) : nil
                        if bits == nil { values = committed.journalKeyChanges(limit: MixJournal.valueLimit) }
                        let sight = journal.sight(
                            of: entry.substance, serial: committed.substanceSerial, named: name)
                        if sight != .following,
                            let start = committed.journalOldState(limit: MixJournal.startStateLimit)
                        {
                            // A substance made again under a name the journal knows starts its
                            // states again here, as does one taking its name back from another
                            // alive under it; a new name starts them with the journal. (Two
                            // substances new to the journal under one name in one mix: the second
                            // starts again from its own.)
                            if sight == .takingNameBack || journal.hasStart(named: name)
                                || starts.contains(where: { $0.substance == name })
                            {
                                restart = start
                            } else {
                                starts.append((name, start))
                            }
                        }
                    }
                    changes.append(
                        RecordedChange(
                            substance: name, keys: committed.keySnapshot, values: values, bits: bits, start: restart))
                    // A state nested deeper than an entry's line can hold is left out of the
                    // entry's states: the line could not be written with it.
                    if recordsTaskStates, let data = committed.encodedNewState(),
                        Document.nestingBeyondLimit(data, limit: JournalValue.nestingLimit) == nil
                    {
                        states = (states ?? [:]).merging([name: data]) { $1 }
                    }
                case .unchanged:
                    changes.append(RecordedChange(substance: entry.receiverName, keys: nil))
                case .aborted:
                    changes.append(RecordedChange(substance: entry.receiverName, keys: nil, aborted: true))
                }
            }
            self.changes = consume changes
            self.item = item
            historyStepMixes = historyItems.map { journal.serials(ofItems: $0) }
            self.reactorsNotified = reactorsNotified
            self.states = consume states
            self.starts = starts
        }
    }

    /// One substance's part in a recorded mix.
    struct RecordedChange: Sendable {
        let substance: String
        /// Nil when it changed nothing or aborted.
        let keys: ChangedKeySnapshot?
        /// The changed keys' values, when the journal records them and they are not kept as
        /// `bits`.
        var values: [KeyChange]? = nil
        /// The one changed key's values, kept as their bits (see `ChangedBits`): read as values
        /// when they are asked for, exactly as they were at the commit.
        var bits: ChangedBits? = nil
        var aborted = false
        /// The state before the mix of a substance whose states start again here under a name the
        /// journal knows (`Change.start`): made again, or taking the name back from another one
        /// alive under it (once each time the name changes hands).
        var start: JournalValue? = nil

        /// The changed keys' values, when the journal records them.
        var keyChanges: [KeyChange]? {
            bits.map { [$0.journalKeyChange(limit: MixJournal.valueLimit)] } ?? values
        }

        var change: Change {
            Change(substance: substance, keys: keys?.keys ?? [], values: keyChanges, aborted: aborted, start: start)
        }
    }

    /// The substances' parts in a recorded mix: the first inline (most mixes reach one substance),
    /// the others in an array, so that a mix of one substance records without a second allocation.
    ///
    /// The first is no optional, and is moved in: bound out of an optional, or passed in borrowed,
    /// it was copied, each of its references retained and released (scenario S1j).
    struct RecordedChanges: Sendable {
        /// Meaningful when `isEmpty` is false.
        private var first = RecordedChange(substance: "", keys: nil)
        private var isEmpty = true
        private var others: [RecordedChange] = []

        mutating func append(_ change: consuming RecordedChange) {
            if isEmpty {
                first = change
                isEmpty = false
            } else {
                others.append(change)
            }
        }

        /// The parts, in the order the substances ran.
        var all: [Change] {
            isEmpty ? [] : [first.change] + others.map(\.change)
        }

        /// Calls `body` with each part.
        func visit(_ body: (borrowing RecordedChange) -> Void) {
            guard !isEmpty else { return }
            body(first)
            for other in others { body(other) }
        }
    }

    /// What one substance did with a mix.
    public struct Change: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The substance's name.
        public let substance: String
        /// The keys it changed, parents included.
        public let keys: [String]
        /// The changed keys with their values before and after, when the journal records values
        /// (``MixJournal/recordsChangedValues``): the keys no other changed key is below (a parent
        /// such as `info` is in ``keys`` only; its children carry the values).
        public let values: [KeyChange]?
        /// Whether it aborted.
        public let aborted: Bool
        /// The substance's whole state before the mix, when it is a substance made again under the
        /// name of one the journal saw before (a screen's substance made when the screen opens
        /// again), or one that commits after another alive under the same name did: its states
        /// start again here, from its own, rather than continue the other one's. Nil otherwise (a
        /// substance's first state is in ``Document/startStates``).
        public let start: JournalValue?

        /// A substance's part in a mix: the keys it changed (with their values), or that it
        /// aborted; `start`, its state before the mix when its states start again here.
        public init(
            substance: String, keys: [String], values: [KeyChange]? = nil, aborted: Bool = false,
            start: JournalValue? = nil
        ) {
            self.substance = substance
            self.keys = keys
            self.values = values
            self.aborted = aborted
            self.start = start
        }

        /// Reads a change of the JSON lines. Its ``start`` is cut as a document's starting states
        /// are (``Document/init(jsonLines:)``), for a file made elsewhere: at twice
        /// ``MixJournal/startStateLimit`` (the journal's own, cut at about the limit, read back
        /// unchanged).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            substance = try container.decode(String.self, forKey: .substance)
            keys = try container.decode([String].self, forKey: .keys)
            values = try container.decodeIfPresent([KeyChange].self, forKey: .values)
            aborted = try container.decode(Bool.self, forKey: .aborted)
            let limit = decoder.userInfo[Document.startLimitKey] as? Int ?? 2 * MixJournal.startStateLimit
            start = try container.decodeIfPresent(JournalValue.self, forKey: .start)?.bounded(to: limit).value
        }

        private enum CodingKeys: String, CodingKey {
            case substance, keys, values, aborted, start
        }

        public var description: String {
            aborted ? "\(substance): aborted" : "\(substance): \(keys.joined(separator: ", "))"
        }
    }

    /// Why a middleware stopped a mix: the bus's own record of it, which the journal keeps as it is.
    public typealias Stop = FluxMixReport.Stop

    /// Where a mix was dispatched from, as a journal records it (`FluxOrigin`, as text).
    public struct Origin: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The file, as `#fileID` spells it.
        public let fileID: String
        /// The line.
        public let line: UInt
        /// The function, as `#function` spells it.
        public let function: String

        /// The origin `origin` records.
        public init(_ origin: FluxOrigin) {
            self.init(fileID: origin.fileID, line: origin.line, function: origin.function)
        }

        /// An origin of each part given.
        public init(fileID: String, line: UInt, function: String) {
            self.fileID = fileID
            self.line = line
            self.function = function
        }

        /// `Module/File.swift:42 in addItem(_:)`.
        public var description: String { "\(fileID):\(line) in \(function)" }
    }

    /// The most entries kept; older ones are dropped first.
    public let capacity: Int
    /// Whether payload values are recorded (otherwise keys and types only).
    public let recordsPayloadValues: Bool
    /// Whether the new states of tasks (chains, rollbacks, undo) are recorded, so they replay.
    public let recordsStates: Bool
    /// Whether each changed key's values before and after are recorded, and each substance's state
    /// where the journal first sees it, so that the state after any mix can be rebuilt
    /// (``Document/states(after:)``, the timeline page).
    public let recordsChangedValues: Bool

    /// About how many bytes of JSON a changed value may take in the journal (64 KiB); a longer one
    /// is cut, and the states rebuilt from then on are not exact.
    public static let valueLimit = 65_536
    /// About how many bytes of JSON a substance's starting state may take (64 MiB); a longer one is
    /// cut, and its rebuilt states are not exact.
    public static let startStateLimit = 64 << 20
    /// The longest line ``entries(fromJSONLines:)`` reads: 512 MiB. The journal writes shorter
    /// lines (values cut at ``valueLimit``, starting states at ``startStateLimit`` each); a longer
    /// one is refused with its number rather than read into memory whole.
    public static let lineLimit = 512 << 20

    /// The entries, in a ring; and where the rebuild of each substance's states starts: its state
    /// where the journal first saw it, and what the entries dropped from the ring changed since.
    private struct Storage {
        var entries: [Recorded] = []
        var start = 0
        var dropped = 0
        /// Exact once ``pending`` is applied: read them through ``settledStarts()``.
        private var starts: [String: JournalValue] = [:]
        /// A dropped entry's new value of one key that existed before and after its mix, not yet
        /// applied to `starts`: when the next entry dropped sets the same key of the same substance
        /// (a counter, a field being typed in), it takes its place, and the value it replaces,
        /// which that entry overwrites, is never applied. Exact: the key existed on both sides of
        /// both mixes, so applying the first changes nothing but the key's own value, which the
        /// second sets. Applied before any other change is folded and before `starts` is read.
        private var pending: PendingWrite?
        /// See ``pending``: one change, whose one key is set: its values, or its bits.
        private struct PendingWrite {
            let substance: String
            let values: [KeyChange]?
            let bits: ChangedBits?

            /// The key's change, to apply.
            var change: KeyChange { bits?.journalKeyChange(limit: MixJournal.valueLimit) ?? values![0] }

            /// Whether `other`, a change of one key of the same substance, sets the same key.
            func setsSameKey(as other: borrowing RecordedChange) -> Bool {
                if bits != nil, other.bits != nil { return bits?.isSameKey(as: other.bits) == true }
                return (bits?.key ?? values![0].key) == (other.bits?.key ?? other.values![0].key)
            }
        }
        /// The substance whose state the last fold changed, and where that state lies in
        /// `starts`: most mixes change one substance, then found again by comparing its name
        /// rather than by hashing it (a full journal folds an entry per mix, scenario S1j).
        /// Forgotten when a state is added, which may move the others.
        private var lastFolded: (substance: String, index: Dictionary<String, JournalValue>.Index)?

        /// Whether `substance` has a state its rebuild starts from.
        func hasStart(of substance: String) -> Bool { starts[substance] != nil }

        /// Each substance's state before the first entry kept, exactly.
        mutating func settledStarts() -> [String: JournalValue] {
            applyPending()
            return starts
        }

        /// Applies ``pending`` to `starts`, if there is one.
        private mutating func applyPending() {
            guard let write = pending else { return }
            pending = nil
            if let index = startIndex(of: write.substance) { starts.values[index].apply(write.change) }
        }

        /// Starts the rebuild of `substance`'s states at `state`, unless it has a start already.
        mutating func addStart(_ state: JournalValue, of substance: String) {
            guard starts[substance] == nil else { return }
            starts[substance] = state
            lastFolded = nil
        }

        /// The entries kept, oldest first.
        var kept: [Recorded] { Array(entries[start...] + entries[..<start]) }

        /// The entry `age` places before the newest kept (0: the newest); there must be one.
        func kept(fromNewest age: Int) -> Recorded {
            entries[(start + entries.count - 1 - age) % entries.count]
        }

        /// How many of the newest entries have a serial greater than `serial` (serials grow along
        /// the ring, so they are found from the newest back).
        func countNewer(than serial: UInt64) -> Int {
            var count = 0
            while count < entries.count, kept(fromNewest: count).serial > serial { count += 1 }
            return count
        }

        /// Applies the changes of `dropped`, an entry leaving the ring, to the states the rebuild
        /// starts from, in the order they were made: the starting states stay the states before
        /// the first entry kept, exactly.
        mutating func fold(_ dropped: Recorded) {
            dropped.changes.visit { change in
                guard !change.aborted else { return }
                // A single key set again (see `pending`): the value it replaces is never applied.
                // (A key kept as bits is a property: it exists on both sides.)
                let setsOneKey =
                    change.bits != nil
                    || (change.values?.count == 1 && change.values?[0].oldExists == true
                        && change.values?[0].newExists == true)
                if change.start == nil, setsOneKey, startIndex(of: change.substance) != nil {
                    // Read in place: bound, the write was copied (scenario S1j).
                    if pending != nil,
                        pending?.substance != change.substance || pending?.setsSameKey(as: change) != true
                    {
                        applyPending()
                    }
                    pending = PendingWrite(substance: change.substance, values: change.values, bits: change.bits)
                    return
                }
                applyPending()
                // A substance made again under a known name: its states start again here (and
                // start here, if the journal was cleared while the mix was recorded).
                if let start = change.start {
                    if let index = startIndex(of: change.substance) {
                        starts.values[index] = start
                    } else {
                        addStart(start, of: change.substance)
                    }
                }
                // Applied where the state lies: one lookup, and the state is not copied.
                guard let values = change.keyChanges, let index = startIndex(of: change.substance) else { return }
                for value in values { starts.values[index].apply(value) }
            }
        }

        /// Where `substance`'s state lies in `starts`, if it has one.
        private mutating func startIndex(of substance: String) -> Dictionary<String, JournalValue>.Index? {
            if lastFolded?.substance == substance, let index = lastFolded?.index {
                assert(starts.keys[index] == substance, "a journal's last folded start moved")
                return index
            }
            guard let index = starts.index(forKey: substance) else { return nil }
            lastFolded = (substance, index)
            return index
        }
    }

    private let storage = LockedValue(Storage())
    /// The substances seen so far (on the bus only, but behind a lock: `clear()` comes from anywhere).
    private let seen = LockedValue(Seen())
    /// Each substance seen, by its identity, with a weak reference to it: a substance made where
    /// a freed one lived has the same identity, and is told apart because the reference to the
    /// freed one is nil.
    private struct Seen {
        var all: [ObjectIdentifier: SeenSubstance] = [:]
        /// The number of the last one asked about's reference (0: none; see
        /// `SubstanceReference.serial`): most mixes change the substance the mix before changed,
        /// then found seen without hashing it, and without loading a weak reference (scenario
        /// S1j). No other substance's reference has it, ever, and it holds nothing alive (the
        /// reference held the bus, which holds the journal).
        var lastSerial: UInt64 = 0
        /// The name the last one asked about committed under.
        var lastName = ""
        /// The substance that last committed under each name: the one the name's rebuilt states
        /// follow. Two alive under one name take it in turns.
        var byName: [String: SeenSubstance] = [:]
        /// The count of `all` at which the substances gone are forgotten (each holds the runtime's
        /// record of a weak reference until then).
        var forgetAt = 64
    }
    private struct SeenSubstance {
        weak var object: (any AnySubstance)?

        init(_ object: (any AnySubstance)?) {
            self.object = object
        }
    }
    /// Dates the entries from the bus's monotonic clock.
    private let clock = JournalClock()

    /// - Parameters:
    ///   - capacity: the most entries kept (10,000 by default).
    ///   - recordsPayloadValues: record payload values (needed to replay), or only keys and types.
    ///   - recordsStates: record the whole new states that chain reactions, rollbacks and undo
    ///     produce, in each of their entries (the journals of earlier versions replayed tasks from
    ///     them). Off by default: a replay applies a task's recorded changes instead, at the cost of
    ///     the change, where a whole state per chain cost the state's size in every entry.
    ///   - recordsChangedValues: record each changed key's values before and after (bounded by
    ///     ``valueLimit``), and each substance's state where the journal first sees it: what the
    ///     timeline page and a value-exact replay need. Like states, values are user data: by
    ///     default they are recorded when payload values are. `_`-prefixed properties and the
    ///     state's `State.secretKeys` are never recorded.
    public init(
        capacity: Int = 10_000, recordsPayloadValues: Bool = true, recordsStates: Bool? = nil,
        recordsChangedValues: Bool? = nil
    ) {
        self.capacity = max(1, capacity)
        self.recordsPayloadValues = recordsPayloadValues
        self.recordsStates = recordsStates ?? false
        self.recordsChangedValues = recordsChangedValues ?? recordsPayloadValues
    }

    /// Records the mix (on the bus).
    public func didMix(_ report: FluxMixReport) {
        let entry = Recorded(report: report, journal: self)
        let recordsChangedValues = self.recordsChangedValues
        storage.withLock { storage in
            for start in entry.starts { storage.addStart(start.state, of: start.substance) }
            if storage.entries.count < capacity {
                storage.entries.append(entry)
            } else {
                // The dropped entry's new values move into where its substances' rebuild starts.
                if recordsChangedValues { storage.fold(storage.entries[storage.start]) }
                storage.entries[storage.start] = entry
                storage.start = (storage.start + 1) % capacity
                storage.dropped += 1
            }
        }
    }

    /// How the journal sees a substance that commits under `name` (on the bus), `serial` being the
    /// number of its reference (`SubstanceChanges.substanceSerial`): as the one whose states the
    /// name's rebuild follows (`.following`), for the first time (`.new`), or as a substance it
    /// knows that takes the name back from another one alive under the same name
    /// (`.takingNameBack`): its states start again from its own there.
    func sight(of substance: any AnySubstance, serial: UInt64, named name: String) -> Sight {
        seen.withLock { seen in
            // The last one to commit holds its name: no other commit under it came in between
            // (unless it commits under another name now: `name()` may change).
            if seen.lastSerial == serial, seen.lastName == name { return .following }
            seen.lastSerial = serial
            seen.lastName = name
            let holder = seen.byName.updateValue(SeenSubstance(substance), forKey: name)
            let identity = ObjectIdentifier(substance)
            if seen.all[identity]?.object === substance {
                return holder?.object === substance ? .following : .takingNameBack
            }
            seen.all[identity] = SeenSubstance(substance)
            if seen.all.count >= seen.forgetAt {
                seen.all = seen.all.filter { $0.value.object != nil }
                seen.byName = seen.byName.filter { $0.value.object != nil }
                seen.forgetAt = max(64, 2 * seen.all.count)
            }
            return .new
        }
    }

    /// See ``sight(of:serial:named:)``.
    enum Sight { case following, new, takingNameBack }

    /// The serials of the entries kept whose commits were made by the work items `items`, in
    /// order: those of an undo's step (found from the newest back, as an undo's mixes usually are
    /// recent).
    func serials(ofItems items: [UInt64]) -> [UInt64] {
        // A step's mixes are in order, oldest first.
        guard let oldest = items.first, let newest = items.last else { return [] }
        let wanted = Set(items)
        return storage.withLock { storage in
            var found: [UInt64] = []
            var age = 0
            // Work items grow along the ring: past the oldest wanted, nothing more is; and once
            // every one is found, the rest is not read (an undo of mixes long dropped reads the
            // ring down to the first entry older than them, or to its end).
            while age < storage.entries.count, found.count < wanted.count {
                let entry = storage.kept(fromNewest: age)
                age += 1
                if entry.item == 0 || entry.item > newest { continue }
                if entry.item < oldest { break }
                if wanted.contains(entry.item) { found.append(entry.serial) }
            }
            return found.reversed()
        }
    }

    /// Whether the journal has a state the rebuild of `substance`'s states starts from (on the bus).
    func hasStart(named substance: String) -> Bool {
        storage.withLock { $0.hasStart(of: substance) }
    }

    /// The entries kept, oldest first.
    public var entries: [Entry] {
        storage.withLock(\.kept).map { Entry($0, clock: clock) }
    }

    /// The serial of the newest entry kept (nil when none is): what a view checks, cheaply, to
    /// learn that there is something new to ask for.
    public var newestSerial: UInt64? {
        storage.withLock { $0.entries.isEmpty ? nil : $0.kept(fromNewest: 0).serial }
    }

    /// The entries kept whose serial is greater than `serial`, oldest first: what a view that has
    /// shown the mixes up to `serial` shows next. Only those entries are made, so that a view
    /// that asks often pays for what is new, not for the whole ring.
    ///
    /// - Parameters:
    ///   - serial: The serial the entries come after (0: from the oldest kept).
    ///   - end: Only entries whose serial is less than this (a view loading earlier mixes in
    ///     chunks, newest first); all by default.
    ///   - limit: Only the newest `limit` of those.
    public func entries(after serial: UInt64, before end: UInt64 = .max, newest limit: Int = .max) -> [Entry] {
        let recorded = storage.withLock { storage in
            let newer = storage.countNewer(than: serial)
            // Those from `end` on are the newest `skipped`; the ones asked for come next.
            let skipped = end == 0 ? newer : min(newer, storage.countNewer(than: end - 1))
            let taken = min(newer - skipped, max(0, limit))
            return (skipped..<(skipped + taken)).reversed().map { storage.kept(fromNewest: $0) }
        }
        return recorded.map { Entry($0, clock: clock) }
    }

    /// The entry kept with serial `serial`, if the journal keeps it: only that entry is made.
    public func entry(serial: UInt64) -> Entry? {
        let recorded = storage.withLock { storage -> Recorded? in
            guard serial > 0 else { return nil }
            let newer = storage.countNewer(than: serial - 1)
            guard newer > 0 else { return nil }
            let oldest = storage.kept(fromNewest: newer - 1)
            return oldest.serial == serial ? oldest : nil
        }
        return recorded.map { Entry($0, clock: clock) }
    }

    /// The entries kept, and each substance's state before the first of them, from which the state
    /// after each mix is rebuilt.
    public var document: Document {
        // Both under one hold of the lock: a fold between them took a dropped entry's changes
        // out of the entries without having put them in the starting states read before.
        let (starts, kept) = storage.withLock { ($0.settledStarts(), $0.kept) }
        return Document(startStates: starts, entries: kept.map { Entry($0, clock: clock) })
    }

    /// How many entries were dropped to stay within ``capacity``.
    public var droppedCount: Int { storage.withLock { $0.dropped } }

    /// Forgets every entry and every substance seen, and counts no entry dropped
    /// (``droppedCount`` is 0): the journal starts again, each substance's states from where it
    /// next commits. Call it before using a journal again on a bus it was
    /// removed from: it records only while it is in use, and the states it rebuilt would miss
    /// what ran meanwhile.
    public func clear() {
        storage.withLock { $0 = Storage() }
        seen.withLock { $0 = Seen() }
    }

    /// The journal as JSON lines: a first line with each substance's starting state (when values
    /// are recorded; see ``Document``), then one JSON object per entry, oldest first.
    public func jsonLines() -> String {
        document.jsonLines()
    }

    /// Reads the entries of JSON lines exported by ``jsonLines()``; empty lines and the line of
    /// starting states are skipped.
    ///
    /// - Throws: ``Document/LineError`` naming the first line that is not an entry.
    public static func entries(fromJSONLines text: String) throws -> [Entry] {
        try Document(jsonLines: text).entries
    }
}

/// Turns the monotonic instants the bus records into wall-clock dates, from one reading of both
/// clocks taken when the journal was made.
struct JournalClock: Sendable {
    private let date = Date()
    private let instant = ContinuousClock.now

    func date(of moment: ContinuousClock.Instant) -> Date {
        let elapsed = moment - instant
        let (seconds, attoseconds) = elapsed.components
        return date.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
