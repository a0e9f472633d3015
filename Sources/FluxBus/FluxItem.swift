/// One unit of work on the bus: a named mixer (with its payload, and its lock for an exclusive
/// mix), or a task.
///
/// A struct with one small enum inside rather than an enum with payloads: the queue copies items
/// in and out of its buffer, and a multi-payload enum of all these fields was copied through
/// outlined runtime witnesses. A mixer's payload and lock, or a task's closure, share the item's
/// `work` (an item never has both), and the closure is kept in place rather than boxed: queueing a
/// task whose closure captures one object (a chain reaction, a continuation's box) allocates
/// nothing. A pending dispatch takes one 48-byte slot of the queue's buffer.
struct FluxItem: Sendable {
    /// The mixer to deliver to its observers, or the label of a mix task.
    let mixer: FluxMixerName
    private let work: Work
    private let kind: Kind

    private enum Work {
        case mixer(payload: FluxPayload?, lock: FluxLock?)
        case task(@Sendable () -> Void)
    }

    private enum Kind: UInt8 {
        case mixer, exclusiveMixer, task, mixTask, resume
    }

    private init(mixer: FluxMixerName, work: Work, kind: Kind) {
        self.mixer = mixer
        self.work = work
        self.kind = kind
    }

    /// The payload of a mixer.
    var payload: FluxPayload? {
        guard case .mixer(let payload, _) = work else { return nil }
        return payload
    }

    /// The lock of an exclusive mix.
    var lock: FluxLock? {
        guard case .mixer(_, let lock) = work else { return nil }
        return lock
    }

    /// The task to run instead of delivering a mixer.
    var task: (@Sendable () -> Void)? {
        guard case .task(let task) = work else { return nil }
        return task
    }

    /// Whether the task must also run when the item is purged (it resumes a `flush()` waiter).
    var runsWhenDropped: Bool { kind == .resume }

    /// What middleware see this item as: a mix of some kind, or nothing (a bookkeeping task).
    var mixKind: FluxMixReport.Kind? {
        switch kind {
        case .mixer: .mixer
        case .exclusiveMixer: .exclusiveMixer
        case .mixTask: .task
        case .task, .resume: nil
        }
    }

    static func mixer(_ mixer: FluxMixerName, _ payload: FluxPayload?, _ lock: FluxLock?) -> FluxItem {
        FluxItem(mixer: mixer, work: .mixer(payload: payload, lock: lock), kind: lock == nil ? .mixer : .exclusiveMixer)
    }

    static func task(_ task: @escaping @Sendable () -> Void) -> FluxItem {
        FluxItem(mixer: FluxItem.taskName, work: .task(task), kind: .task)
    }

    static func mixTask(_ label: FluxMixerName, _ task: @escaping @Sendable () -> Void) -> FluxItem {
        FluxItem(mixer: label, work: .task(task), kind: .mixTask)
    }

    static func resume(_ continuation: CheckedContinuation<Void, Never>) -> FluxItem {
        FluxItem(mixer: FluxItem.taskName, work: .task { continuation.resume() }, kind: .resume)
    }

    /// How diagnostics name the item: its mixer, or `task`.
    var label: FluxMixerName { kind == .task || kind == .resume ? "task" : mixer }

    static let taskName = FluxMixerName("")
}
