/// One unit of work on the bus: a named mixer (with its payload, and its lock for an exclusive
/// mix), or a task.
///
/// A plain struct rather than an enum with payloads: the queue copies items in and out of its
/// buffer, and a multi-payload enum of these fields is copied through outlined runtime witnesses.
/// The lock of an exclusive mix, the value dispatched with a mixer (a ``FluxValueCarrier``, which
/// holds the lock too when there is one) and the work of a task (a ``FluxWork``) share one
/// reference. With where it was dispatched from (a ``FluxOrigin``: two static strings and a line,
/// 50 bytes of the 91), a pending dispatch takes one 96-byte slot of the main lane's chunk and
/// allocates nothing (a dispatch with a value allocates its carrier).
struct FluxItem: Sendable {
    /// What observers and middleware receive, held as it was made at the dispatch so that the bus
    /// lends it to them rather than building a copy (a copy retains the mixer's name, the payload
    /// and the lock or value, and releases them after). A task is an event of a kind no observer
    /// sees: its `work` is the task.
    let event: FluxEvent

    typealias Kind = FluxEventKind

    private init(_ event: FluxEvent) {
        self.event = event
    }

    private init(task: FluxWork, kind: Kind, label: FluxMixerName = FluxItem.taskName, origin: FluxOrigin? = nil) {
        event = FluxEvent(mixer: label, payload: nil, work: task, kind: kind, origin: origin)
    }

    private var kind: Kind { event.kind }
    /// The work of a task (the item must be one).
    var task: FluxWork { event.work as! FluxWork }
    /// The mixer to deliver to its observers, or the label of a mix task.
    var mixer: FluxMixerName { event.mixer }

    /// The lock of an exclusive mix.
    @inline(__always) var lock: FluxLock? { event.lock }

    /// Whether the item is a task rather than a mixer to deliver.
    var isTask: Bool { kind.rawValue > Kind.emptyValueMixer.rawValue }

    /// Whether the item is a task queued as a mix (``Flux/perform(mix:_:origin:)``).
    var isMixTask: Bool { kind == .mixTask }

    /// Whether the item is work queued as it is (``Flux/perform(_:)-(FluxWork)``, a closure), not
    /// as a mix, a flush waiter or the bus's upkeep.
    var isPlainTask: Bool { kind == .task }

    /// Runs the item's task (it must be one).
    func runTask() {
        task.run()
    }

    /// Tells the item's task that the item is over (it must be one).
    func finishTask() {
        task.finished()
    }

    /// Whether the task must also run when the item is purged (it resumes a `flush()` waiter).
    var runsWhenDropped: Bool { kind == .resume }

    /// Whether a purge keeps the item: the bus's upkeep (observers and middleware added or removed,
    /// counts asked for), not work a purge is meant to drop.
    var survivesPurge: Bool { kind == .upkeep }

    /// Tells a dropped task's work that it will not run (see `FluxWork.dropped()`); runs a flush
    /// waiter's resumption.
    func settleDropped() {
        switch kind {
        case .resume: runTask()
        case .task, .mixTask: task.dropped()
        case .mixer, .exclusiveMixer, .valueMixer, .emptyValueMixer, .upkeep: break
        }
    }

    /// What middleware see this item as: a mix of some kind, or nothing (a bookkeeping task).
    var mixKind: FluxMixReport.Kind? {
        switch kind {
        case .mixer, .exclusiveMixer, .valueMixer, .emptyValueMixer: lock == nil ? .mixer : .exclusiveMixer
        case .mixTask: .task
        case .task, .resume, .upkeep: nil
        }
    }

    static func mixer(
        _ mixer: FluxMixerName, _ payload: FluxPayload?, _ lock: FluxLock?, origin: FluxOrigin?
    ) -> FluxItem {
        FluxItem(FluxEvent(mixer: mixer, payload: payload, lock: lock, origin: origin))
    }

    static func mixer(
        _ mixer: FluxMixerName, _ payload: FluxPayload?, carrying carrier: FluxValueCarrier, origin: FluxOrigin?
    ) -> FluxItem {
        FluxItem(FluxEvent(mixer: mixer, payload: payload, carrying: carrier, origin: origin))
    }

    /// A mixer named by a type without stored bytes, carrying that type's kept value (see
    /// ``FluxEmptyValues``).
    static func mixer(emptyValueOf mixer: FluxMixerName, origin: FluxOrigin?) -> FluxItem {
        FluxItem(FluxEvent(mixer: mixer, payload: nil, work: nil, kind: .emptyValueMixer, origin: origin))
    }

    static func task(_ work: FluxWork) -> FluxItem {
        FluxItem(task: work, kind: .task)
    }

    /// A task that runs a mixer of its own (an awaited dispatch's), named in reports by that
    /// mixer and its origin: what `lockReport()` lists it as while it waits.
    static func task(_ work: FluxWork, runningMixer mixer: FluxMixerName, origin: FluxOrigin?) -> FluxItem {
        FluxItem(task: work, kind: .task, label: mixer, origin: origin)
    }

    static func upkeep(_ work: FluxWork) -> FluxItem {
        FluxItem(task: work, kind: .upkeep)
    }

    static func mixTask(_ label: FluxMixerName, _ work: consuming FluxWork, origin: FluxOrigin?) -> FluxItem {
        FluxItem(task: work, kind: .mixTask, label: label, origin: origin)
    }

    static func resume(_ continuation: CheckedContinuation<Void, Never>) -> FluxItem {
        FluxItem(task: FluxTask { continuation.resume() }, kind: .resume)
    }

    /// How diagnostics name the item: its mixer (an awaited dispatch's too), `flush` for a
    /// `flush()` waiter, or `task`.
    var label: FluxMixerName {
        switch kind {
        case .resume: "flush"
        case .task, .upkeep: mixer == FluxItem.taskName ? "task" : mixer
        case .mixer, .exclusiveMixer, .valueMixer, .emptyValueMixer, .mixTask: mixer
        }
    }

    static let taskName = FluxMixerName("")
}
