/// One unit of work on the bus: a named mixer (with its payload, and its lock for an exclusive
/// mix), or a task.
///
/// A plain struct rather than an enum with payloads: the queue copies items in and out of its
/// buffer, and a multi-payload enum of these fields is copied through outlined runtime witnesses.
/// 56 bytes, so a pending dispatch costs one 64-byte slot of the queue's buffer and no allocation.
struct FluxItem: Sendable {
    /// The mixer to deliver to its observers, when `task` is nil.
    var mixer: FluxMixerName
    var payload: FluxPayload?
    /// Set for an exclusive mix.
    var lock: FluxLock?
    /// A task to run instead of delivering a mixer.
    var task: (@Sendable () -> Void)?
    /// Whether the task must also run when the item is purged (it resumes a `flush()` waiter).
    var runsWhenDropped = false
    /// Whether the task mixes substances (a chain reaction, a rollback), so middleware see it as a
    /// mix named `mixer`.
    var isMixTask = false

    static func mixer(_ mixer: FluxMixerName, _ payload: FluxPayload?, _ lock: FluxLock?) -> FluxItem {
        FluxItem(mixer: mixer, payload: payload, lock: lock, task: nil)
    }

    static func task(_ task: @escaping @Sendable () -> Void) -> FluxItem {
        FluxItem(mixer: FluxItem.taskName, payload: nil, lock: nil, task: task)
    }

    static func mixTask(_ label: FluxMixerName, _ task: @escaping @Sendable () -> Void) -> FluxItem {
        FluxItem(mixer: label, payload: nil, lock: nil, task: task, isMixTask: true)
    }

    static func resume(_ continuation: CheckedContinuation<Void, Never>) -> FluxItem {
        FluxItem(
            mixer: FluxItem.taskName, payload: nil, lock: nil, task: { continuation.resume() }, runsWhenDropped: true)
    }

    /// How diagnostics name the item: its mixer, or `task`.
    var label: FluxMixerName { task == nil || isMixTask ? mixer : "task" }

    static let taskName = FluxMixerName("")
}
