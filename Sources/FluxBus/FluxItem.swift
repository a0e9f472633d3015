/// One unit of work on the bus: a named mixer (with its payload, and its lock for an exclusive
/// mix), or a task.
///
/// A plain struct rather than an enum with payloads: the queue copies items in and out of its
/// buffer, and a multi-payload enum of these fields is copied through outlined runtime witnesses.
/// The lock of an exclusive mix and the closure of a task share one reference (an item never has
/// both). A task can also be a function of one object (``FluxObjectFunction``), kept as the object
/// and a function pointer: queueing it allocates nothing. An item is 49 bytes: a pending dispatch
/// takes one 56-byte slot of the queue's buffer and allocates nothing.
struct FluxItem: Sendable {
    /// The mixer to deliver to its observers, or the label of a mix task.
    let mixer: FluxMixerName
    let payload: FluxPayload?
    /// The lock (a `FluxLock`), the task (a `FluxTask`) or the object of `function`, told apart
    /// by `kind` and `function`.
    private let work: (any AnyObject & Sendable)?
    /// The task, when it is a function of `work`.
    private let function: FluxObjectFunction?
    private let kind: Kind

    private enum Kind: UInt8 {
        case mixer, exclusiveMixer, task, mixTask, resume
    }

    private init(
        mixer: FluxMixerName, payload: FluxPayload?, work: (any AnyObject & Sendable)?, kind: Kind,
        function: FluxObjectFunction? = nil
    ) {
        self.mixer = mixer
        self.payload = payload
        self.work = work
        self.function = function
        self.kind = kind
    }

    /// The lock of an exclusive mix.
    var lock: FluxLock? { kind == .exclusiveMixer ? unsafeDowncast(work.unsafelyUnwrapped, to: FluxLock.self) : nil }

    /// Whether the item is a task rather than a mixer to deliver.
    var isTask: Bool { kind != .mixer && kind != .exclusiveMixer }

    /// Runs the item's task (it must be one).
    func runTask() {
        if let function {
            function(Unmanaged.passUnretained(work.unsafelyUnwrapped).toOpaque())
        } else {
            unsafeDowncast(work.unsafelyUnwrapped, to: FluxTask.self).run()
        }
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
        FluxItem(mixer: mixer, payload: payload, work: lock, kind: lock == nil ? .mixer : .exclusiveMixer)
    }

    static func task(_ task: @escaping @Sendable () -> Void) -> FluxItem {
        FluxItem(mixer: FluxItem.taskName, payload: nil, work: FluxTask(task), kind: .task)
    }

    static func mixTask(_ label: FluxMixerName, _ task: @escaping @Sendable () -> Void) -> FluxItem {
        FluxItem(mixer: label, payload: nil, work: FluxTask(task), kind: .mixTask)
    }

    static func mixTask(
        _ label: FluxMixerName, object: any AnyObject & Sendable, _ function: FluxObjectFunction
    ) -> FluxItem {
        FluxItem(mixer: label, payload: nil, work: object, kind: .mixTask, function: function)
    }

    static func resume(_ continuation: CheckedContinuation<Void, Never>) -> FluxItem {
        FluxItem(mixer: FluxItem.taskName, payload: nil, work: FluxTask { continuation.resume() }, kind: .resume)
    }

    /// How diagnostics name the item: its mixer, or `task`.
    var label: FluxMixerName { kind == .task || kind == .resume ? "task" : mixer }

    static let taskName = FluxMixerName("")
}

/// A task that is a function of one object: called on the bus with the object, unretained (the
/// item holds it meanwhile). A task that captures only one object can be queued as the object and
/// a function that captures nothing, with no allocation.
package typealias FluxObjectFunction = @convention(c) (UnsafeMutableRawPointer) -> Void

/// A task's closure, boxed so that it fits in the reference an item keeps for its work.
final class FluxTask: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
