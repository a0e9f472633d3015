import FlaskLocking
import FluxBus

/// Undo and redo for one substance: multi-level, bounded, merging changes that come closer
/// together than an interval you choose.
///
/// ```swift
/// let history = SubstanceHistory(of: editor, limit: 100, mergingWithin: .milliseconds(500))
/// // ... the user types: commits less than 0.5 s apart become one undo step ...
/// history.undo()
/// history.redo()
/// ```
///
/// Every commit of the substance (from mixers, chain reactions, rollbacks) is recorded as it
/// happens on the bus. Undo and redo are mixes themselves: each runs as a bus item, after the
/// mixes queued before it, and commits the earlier state, so reactors see it like any other change.
/// A new change after an undo clears the redo steps.
///
/// The history records for as long as you keep it; it does not keep the substance alive.
public final class SubstanceHistory<S: State>: Sendable {
    private let recorder: HistoryRecorder<S>
    private let bus: Flux

    /// Starts recording the commits of `substance`.
    ///
    /// - Parameters:
    ///   - substance: the substance to undo.
    ///   - limit: the most undo steps kept; older ones are forgotten (100 by default).
    ///   - interval: commits closer together than this merge into one undo step (none by default).
    ///   - now: the clock that dates commits; replace it to drive merging from a test.
    public init(
        of substance: Substance<S>, limit: Int = 100, mergingWithin interval: Duration = .zero,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.bus = substance.bus
        self.recorder = HistoryRecorder(substance: substance, limit: max(1, limit), interval: interval, now: now)
        substance.bind(recorder)
    }

    deinit {
        recorder.stop()
    }

    /// Enqueues an undo: commits the state before the last undo step. Does nothing when there is
    /// nothing to undo. `completion` is called on the bus once done, with whether it undid a step.
    public func undo(completion: (@Sendable (Bool) -> Void)? = nil) {
        step(back: true, completion: completion)
    }

    /// Enqueues a redo of the last undone step. `completion` is called on the bus once done, with
    /// whether it redid a step.
    public func redo(completion: (@Sendable (Bool) -> Void)? = nil) {
        step(back: false, completion: completion)
    }

    /// Enqueues one step back or forward, as a mix named `undo` or `redo`.
    private func step(back: Bool, completion: (@Sendable (Bool) -> Void)?) {
        let recorder = self.recorder
        bus.perform(mix: back ? "undo" : "redo") {
            let done = recorder.step(back: back)
            completion?(done)
        }
    }

    /// Whether there is a step to undo, as of the last bus item that ran.
    public var canUndo: Bool { undoCount > 0 }
    /// Whether there is a step to redo, as of the last bus item that ran.
    public var canRedo: Bool { redoCount > 0 }
    /// The number of steps to undo.
    public var undoCount: Int { recorder.stacks.withLock { $0.undo.count } }
    /// The number of steps to redo.
    public var redoCount: Int { recorder.stacks.withLock { $0.redo.count } }

    /// Forgets every step (as a bus item).
    public func clear() {
        let recorder = self.recorder
        bus.perform { recorder.stacks.withLock { $0 = HistoryStacks() } }
    }
}

struct HistoryStacks<S: State>: Sendable {
    var undo: [S] = []
    var redo: [S] = []
    var lastCommit: ContinuousClock.Instant?
    var stepping = false
}

/// The observer that records commits. Bound to the substance (which holds it); holds the
/// substance weakly so the two make no cycle.
///
/// `@unchecked Sendable`: the weak reference is set in `init` and only read afterwards; the
/// stacks are behind a lock (they are changed on the bus and read from any thread).
final class HistoryRecorder<S: State>: SubstanceObserver, @unchecked Sendable {
    private weak var substance: Substance<S>?
    let stacks = LockedValue(HistoryStacks<S>())
    private let limit: Int
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    init(
        substance: Substance<S>, limit: Int, interval: Duration,
        now: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.substance = substance
        self.limit = limit
        self.interval = interval
        self.now = now
    }

    func substance(_ substance: any AnySubstance, didCommit changes: SubstanceChanges, lock: FluxLock?) {
        guard let changes = changes as? StateChanges<S> else { return }
        let time = now()
        stacks.withLock { stacks in
            guard !stacks.stepping else { return }
            defer { stacks.lastCommit = time }
            stacks.redo.removeAll()
            if let last = stacks.lastCommit, !stacks.undo.isEmpty, time - last < interval { return }
            stacks.undo.append(changes.old)
            if stacks.undo.count > limit { stacks.undo.removeFirst(stacks.undo.count - limit) }
        }
    }

    /// Stops recording.
    func stop() {
        substance?.unbind(self)
    }

    /// Undoes (`back`) or redoes one step, on the bus.
    func step(back: Bool) -> Bool {
        guard let substance else { return false }
        let current = substance.committedState
        let target: S? = stacks.withLock { stacks in
            guard let target = back ? stacks.undo.popLast() : stacks.redo.popLast() else { return nil }
            if back { stacks.redo.append(current) } else { stacks.undo.append(current) }
            stacks.stepping = true
            // The next change starts a new step, however soon it comes.
            stacks.lastCommit = nil
            return target
        }
        guard let target else { return false }
        substance.replaceState(with: target)
        stacks.withLock { $0.stepping = false }
        return true
    }
}
