import FluxBus

/// One commit of one substance: what changed, which mix did it and where it was dispatched from,
/// under which lock, and its place among the bus's work. What every observer receives
/// (`SubstanceObserver.didCommit(_:)`), what a reaction reads as `reaction.commit`, what
/// middleware find in a report (`FluxMixReport.commits`), and what the tools record.
///
/// ```swift
/// reactor.handler = { _, reaction in
///     let commit = reaction.commit
///     print(commit.mix.name, commit.keys, commit.origin.map { "\($0)" } ?? "")
///     // SessionMixers.login [user] Shop/LoginView.swift:42 in signIn()
/// }
/// ```
///
/// The changed values are read when asked for (``changes``), as a reaction reads them: a commit that
/// nobody inspects costs nothing more than the keys it changed. Like a reaction, a commit read on
/// the bus is not to be kept past its delivery through a reaction: take ``changes`` (which may then
/// be kept and sent anywhere) or the values you need.
public struct Commit {
    /// The keys that changed, with their old and new values, read on demand.
    public let changes: SubstanceChanges
    /// The lock the mix ran under, for an exclusive mix (`Flux.lock(withMixer:)`). Reading it here
    /// takes nothing over: a reaction takes the lock over with `reaction.onLock`.
    public let lock: FluxLock?

    /// A commit's record, as a substance delivers it.
    @inlinable
    public init(changes: SubstanceChanges, lock: FluxLock?) {
        self.changes = changes
        self.lock = lock
    }

    /// The substance that committed (a stand-in with its bus and state type if it is gone).
    public var substance: any AnySubstance { changes.substance }

    /// Which mix made the commit: a mixer, an action, a chain, a task (rollback, undo, replay).
    public var mix: MixSource { changes.source }

    /// The bus's number of the work item that made the commit, unique per bus: the commits of one
    /// chain share it.
    public var serial: UInt64 { changes.serial }

    /// Where the mix was dispatched from (the chain committed), when its dispatch said (every
    /// dispatch spelling does by default).
    public var origin: FluxOrigin? { changes.source.origin }

    /// The keys that changed, parents included.
    public var keys: [String] { changes.keys }
}

/// Which mix made a commit, as ``Commit/mix`` tells it.
public struct MixSource: Sendable, CustomStringConvertible {
    /// What kind of mix.
    public enum Kind: String, Sendable, Codable {
        /// A mixer of an enumeration dispatched on the main lane.
        case mixer
        /// A mixer dispatched with a lock (an exclusive mix).
        case exclusiveMixer
        /// A typed action (`FlaskAction`).
        case action
        /// A chain reaction.
        case chain
        /// A task that mixed the substance: a rollback, a restore, an undo, a replay.
        case task
    }

    /// What kind of mix it was.
    public let kind: Kind
    /// The event of the mix, as its observers received it; for a chain or a task, its label and
    /// origin.
    public let event: FluxEvent

    /// The mixer's name (for an action, its type's; for a chain or a task, its label:
    /// `chain`, `rollback`, `undo`).
    public var name: FluxMixerName { event.mixer }
    /// The payload the mixer was dispatched with. It is the app's data: what the tools write out
    /// of it follows the secret rules (`SubstanceMixer.secretPayloadKeys`).
    public var payload: FluxPayload? { event.payload }
    /// The action dispatched, for a typed action (its secret fields are the tools' to redact,
    /// `FlaskAction.secretKeys`).
    public var action: (any Sendable)? { event.value }
    /// Where it was dispatched from, when the dispatch said.
    public var origin: FluxOrigin? { event.origin }
    /// For an undo or a redo (`SubstanceHistory`): the mixes whose step it takes back or makes
    /// again, by their commits' ``Commit/serial`` (the bus's work items, not a journal's mix
    /// numbers: a `MixJournal` entry names them in its own as `historyStepMixes`), oldest first.
    /// Several when commits close together merged into one step; of a step merged from more than
    /// 32 (typing that never pauses), its first 16 and its last 16. Empty for any other mix.
    public var historyStepCommits: [UInt64] { history ?? [] }
    /// ``historyStepCommits``, nil for any mix but an undo or a redo: every commit's source is made
    /// with it, and a nil array, unlike an empty one, needs no storage of its own.
    private let history: [UInt64]?

    /// The source of a commit made by the mix of `event`.
    public init(_ event: FluxEvent) {
        self.kind = event.lock != nil ? .exclusiveMixer : event.value != nil ? .action : .mixer
        self.event = event
        self.history = nil
    }

    /// A source of `kind` named `name`, from `origin`; for an undo or a redo, the mixes of the
    /// step it takes back or makes again (``historyStepCommits``).
    public init(kind: Kind, name: FluxMixerName, origin: FluxOrigin? = nil, historyStepCommits: [UInt64] = []) {
        self.kind = kind
        self.event = FluxEvent(mixer: name, payload: nil, lock: nil, origin: origin)
        self.history = historyStepCommits.isEmpty ? nil : historyStepCommits
    }

    /// A task's source (`rollback`, `undo`, `replay`), from `origin` if it says; for an undo or a
    /// redo, the mixes of its step (``historyStepCommits``).
    public static func task(
        _ label: FluxMixerName, origin: FluxOrigin? = nil, historyStepCommits: [UInt64] = []
    ) -> MixSource {
        MixSource(kind: .task, name: label, origin: origin, historyStepCommits: historyStepCommits)
    }

    /// No mix known: a commit made outside one (a test's own transaction, say).
    public static let unknown = MixSource(kind: .task, name: "")

    /// The mix as reports name it: `SessionMixers.login`, `Rename`, `chain` (never a value).
    public var description: String { name.description }
}

extension MixOutcome.Entry {
    /// The commit's record, when the substance committed changes. An outcome keeps no lock: the
    /// record's ``Commit/lock`` is nil (``Commit/mix`` tells an exclusive mix).
    public var commit: Commit? {
        if case .committed(let changes) = result { Commit(changes: changes, lock: nil) } else { nil }
    }
}

extension FluxMixReport {
    /// The records of the commits the mix made, in the order the substances ran: what a middleware
    /// reads of what a mix changed. Reading them lets the middleware keep them (their changes are
    /// no longer refilled by a later commit).
    public var commits: [Commit] {
        records.compactMap { MixOutcome.Entry.of($0)?.commit }
    }
}
