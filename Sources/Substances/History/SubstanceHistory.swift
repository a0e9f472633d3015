import FlaskLocking
import FluxBus

/// Undo and redo over one substance or several: multi-level, bounded, a mix that changed several
/// substances (a chain reaction) undone as one step, and changes that come closer together than
/// an interval you choose merged into one step.
///
/// ```swift
/// let history = SubstanceHistory(of: [session, todos], limit: 100, mergingWithin: .milliseconds(500))
/// // ... a chain logs out and clears the todos: one step ...
/// await history.undo()   // both come back
/// await history.redo()
/// ```
///
/// Every commit of the substances (from mixers, chain reactions, rollbacks) is recorded as it
/// happens on the bus; the commits one work item made are one step. Undo and redo are mixes
/// themselves: each runs as a bus item, after the mixes queued before it, and commits the earlier
/// states, so reactors see them like any other change. A new change after an undo clears the redo
/// steps. The substances must mix on one bus: one of another bus than the first's is not recorded
/// (reported, `history-across-buses`).
///
/// The history records for as long as you keep it; it does not keep its substances alive.
public final class SubstanceHistory: Sendable {
    private let log: HistoryLog
    private let recorders: [any HistoryRecording]
    private let bus: Flux

    /// Starts recording the commits of `substances`.
    ///
    /// - Parameters:
    ///   - substances: the substances to undo, on one bus (any of another bus than the first's is
    ///     refused: reported, and not recorded).
    ///   - limit: the most undo steps kept; older ones are forgotten (100 by default).
    ///   - interval: commits closer together than this merge into one undo step (none by default).
    ///   - now: the clock that dates commits; replace it to drive merging from a test.
    public init(
        of substances: [any AnySubstance], limit: Int = 100, mergingWithin interval: Duration = .zero,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        let bus = substances.first?.bus ?? .current
        self.bus = bus
        let log = HistoryLog(limit: max(1, limit), interval: interval, now: now)
        self.log = log
        // Undo restores states on this bus: a substance of another bus is refused, or undo would
        // write its state off its bus.
        let refused = substances.filter { $0.bus !== bus }
        if !refused.isEmpty {
            let names = refused.map { "\($0.nameInReports) (bus \"\($0.bus.label)\")" }.joined(separator: ", ")
            bus.report(
                .historyAcrossBuses,
                "SubstanceHistory: \(names) mix on another bus than the first substance's (\"\(bus.label)\"); "
                    + "a history undoes on one bus, so it does not record them")
        }
        self.recorders = substances.compactMap { substance in
            guard substance.bus === bus else { return nil }
            return (substance as? any HistorySubject)?.makeHistoryRecorder(log: log)
        }
        for recorder in recorders { recorder.start() }
    }

    /// Starts recording the commits of `substance`.
    public convenience init<S>(
        of substance: Substance<S>, limit: Int = 100, mergingWithin interval: Duration = .zero,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.init(of: [substance], limit: limit, mergingWithin: interval, now: now)
    }

    deinit {
        for recorder in recorders { recorder.stop() }
    }

    /// Enqueues an undo: commits the states before the last undo step (the last of which a
    /// substance still lives, and that changes a key: the steps of substances gone away, and
    /// those whose changes cancelled out, are dropped on the way). Does nothing when there is
    /// nothing to undo. `completion` is called on the bus once done, with whether it undid a step
    /// (pass nil to enqueue it and go on).
    ///
    /// The completion has no default: `history.undo()` is always the `async` one, which waits.
    /// (With a default, top-level code such as a tool's `main.swift` chose this one for
    /// `await history.undo()`, and went on before the undo.) `fileID`, `line` and `function` say
    /// where it was asked for (`Commit.origin`, a journal's entry); leave the defaults.
    public func undo(
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
        completion: (@Sendable (Bool) -> Void)?
    ) {
        step(back: true, origin: FluxOrigin(fileID: fileID, line: line, function: function), completion: completion)
    }

    /// Enqueues a redo of the last undone step. `completion` is called on the bus once done, with
    /// whether it redid a step (pass nil to enqueue it and go on). No default, as for
    /// ``undo(fileID:line:function:completion:)``.
    public func redo(
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
        completion: (@Sendable (Bool) -> Void)?
    ) {
        step(back: false, origin: FluxOrigin(fileID: fileID, line: line, function: function), completion: completion)
    }

    /// Undoes the last step, after the mixes queued before, and returns once its states are
    /// committed and their bus reactions delivered: whether there was a step to undo.
    /// `fileID`, `line` and `function` say where it was asked for; leave the defaults.
    @discardableResult
    public func undo(
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> Bool {
        await step(back: true, origin: FluxOrigin(fileID: fileID, line: line, function: function))
    }

    /// Redoes the last undone step and returns once it is committed: whether there was one.
    /// `fileID`, `line` and `function` say where it was asked for; leave the defaults.
    @discardableResult
    public func redo(
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> Bool {
        await step(back: false, origin: FluxOrigin(fileID: fileID, line: line, function: function))
    }

    /// One step back or forward, as ``step(back:origin:completion:)``, awaited: whether there
    /// was one.
    private func step(back: Bool, origin: FluxOrigin) async -> Bool {
        await withCheckedContinuation { continuation in
            step(back: back, origin: origin) { continuation.resume(returning: $0) }
        }
    }

    /// Enqueues one step back or forward, as a mix named `undo` or `redo`, asked for at `origin`.
    private func step(back: Bool, origin: FluxOrigin, completion: (@Sendable (Bool) -> Void)?) {
        let log = self.log
        let done = LockedValue(false)
        let label: FluxMixerName = back ? "undo" : "redo"
        bus.perform(
            mix: label, origin: origin,
            {
                // Its commits name the step's mixes (a journal's row says which mix it undoes).
                let undone = log.step(back: back) { mixes in .task(label, origin: origin, historyStepCommits: mixes) }
                done.withLock { $0 = undone }
            },
            // Purged before it ran: nothing was undone or redone.
            whenDropped: { completion?(false) },
            // Once the middleware saw it (a journal has recorded the undo).
            whenFinished: {
                let undone = done.withLock { $0 }
                completion?(undone)
            })
    }

    /// Whether there is a step to undo, as of the last bus item that ran (after `await undo()`,
    /// `await redo()` or `await bus.flush()`, as of then), a step of substances that have gone
    /// away no longer counting from the moment they go. A step whose changes cancelled out still
    /// counts: it is found out when an undo reaches it and passes it by (an undo whose every step
    /// is such a step returns false).
    public var canUndo: Bool { log.hasLiveStep(back: true) }
    /// Whether there is a step to redo, as of the last bus item that ran.
    public var canRedo: Bool { log.hasLiveStep(back: false) }
    /// The number of steps to undo: those of which a substance still lives (the steps of
    /// substances gone away since are not counted, and an undo passes them by). Steps whose
    /// changes cancelled out are counted until an undo passes them by.
    public var undoCount: Int { log.liveCount(back: true) }
    /// The number of steps to redo, counted as ``undoCount``.
    public var redoCount: Int { log.liveCount(back: false) }

    /// Forgets every step (as a bus item).
    public func clear() {
        let log = self.log
        bus.perform { log.stacks.withLock { $0 = HistoryStacks() } }
    }
}
