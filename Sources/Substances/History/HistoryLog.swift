import FlaskLocking
import FluxBus

/// One substance's state to go back (or forward) to: restoring it commits the state, on the bus,
/// as the mix `source` says (the undo or redo, and the step's mixes), and returns the entry that
/// restores the state it replaced.
struct HistoryEntry: Sendable {
    let substance: ObjectIdentifier
    /// The substance, held weakly: whether it has gone away since (its state cannot come back).
    let reference: SubstanceReference
    /// Commits the state (on the bus), for the caller to deliver; nil when there is nothing to
    /// restore: the substance has gone away, or its state is already this one, key for key.
    let restore: @Sendable (_ source: MixSource) -> HistoryRestore?
}

/// A state an undo or a redo committed (on the bus, within its mix): the entry that restores the
/// state it replaced, and what delivers its changes.
struct HistoryRestore {
    let inverse: HistoryEntry
    let deliver: () -> Void
}

/// An undo or redo step: the states the substances one mix changed had before it.
struct HistoryStep: Sendable {
    var entries: [HistoryEntry]
    /// Whether a substance of it still lives: a step whose substances have all gone away is
    /// nothing to undo.
    var isLive: Bool { entries.contains { $0.reference.substance != nil } }
    /// When it was last changed.
    var time: ContinuousClock.Instant
    /// The work items of the mixes that made it, oldest first (``Commit/serial``): what an undo or
    /// a redo of it names (``MixSource/historyStepCommits``), so that a journal says which mix it
    /// undoes. At most ``namedMixes``: of more, the first and the last halves. The last is the work
    /// item that made it last, which a commit of the same item merges into (a step an undo or a
    /// redo put back keeps its mixes: no later commit has their items).
    var mixes: [UInt64]
    /// The most mixes a step names.
    static let namedMixes = 32
    /// Whether a commit close to it merges into it: not for a step an undo or a redo put back (a
    /// change after a redo is a step of its own, as after an undo).
    var merges = true
}

struct HistoryStacks: Sendable {
    var undo: [HistoryStep] = []
    var redo: [HistoryStep] = []
    /// Set while an undo or redo commits, so that its commits are not recorded.
    var stepping = false
}

/// The steps of one history, shared by its substances' recorders. Steps are changed on the bus
/// and counted from any thread, so they are behind a lock.
final class HistoryLog: Sendable {
    let stacks = LockedValue(HistoryStacks())
    private let limit: Int
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    init(limit: Int, interval: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.limit = limit
        self.interval = interval
        self.now = now
    }

    /// Records that a substance committed, made by work item `item`, `entry` restoring the state
    /// it had before (on the bus).
    func record(_ entry: HistoryEntry, item: UInt64) {
        let time = now()
        stacks.withLock { stacks in
            guard !stacks.stepping else { return }
            stacks.redo.removeAll()
            if var last = stacks.undo.popLast() {
                if last.mixes.last == item || (last.merges && time - last.time < interval) {
                    // One mix (or changes close together): one step. A substance's first state in
                    // the step is the one to go back to.
                    if !last.entries.contains(where: { $0.substance == entry.substance }) { last.entries.append(entry) }
                    if last.mixes.last != item {
                        last.mixes.append(item)
                        // Bounded, however long commits keep merging (typing that never pauses):
                        // the first and the last of them.
                        if last.mixes.count > HistoryStep.namedMixes {
                            last.mixes.remove(at: HistoryStep.namedMixes / 2)
                        }
                    }
                    last.time = time
                    stacks.undo.append(last)
                    return
                }
                stacks.undo.append(last)
            }
            stacks.undo.append(HistoryStep(entries: [entry], time: time, mixes: [item]))
            if stacks.undo.count > limit { stacks.undo.removeFirst(stacks.undo.count - limit) }
        }
    }

    /// Undoes (`back`) or redoes one step, on the bus: the last one that changes a substance still
    /// alive, its commits made by the mix `source` gives for the step's mixes. The steps of
    /// substances gone away since are dropped on the way (as `UndoManager` drops the actions of a
    /// target that went away), and so are the steps that would change no key (changes merged
    /// into one step that cancelled out); false when no step is left.
    func step(back: Bool, source: (_ mixes: [UInt64]) -> MixSource) -> Bool {
        while true {
            let step: HistoryStep? = stacks.withLock { stacks in
                guard let step = back ? stacks.undo.popLast() : stacks.redo.popLast() else { return nil }
                stacks.stepping = true
                return step
            }
            guard let step else { return false }
            // Restored in reverse order; each restore gives the entry that goes back again.
            let mix = source(step.mixes)
            // Every substance committed before any delivers: a reactor of one reads the others
            // restored too, as after a chain.
            let restores = step.entries.reversed().compactMap { $0.restore(mix) }
            for restore in restores { restore.deliver() }
            let inverse = restores.map(\.inverse)
            let restored = !inverse.isEmpty
            stacks.withLock { stacks in
                if restored {
                    // The same mixes: a redo makes again what the undo took back.
                    let opposite = HistoryStep(
                        entries: inverse.reversed(), time: step.time, mixes: step.mixes, merges: false)
                    if back { stacks.redo.append(opposite) } else { stacks.undo.append(opposite) }
                }
                stacks.stepping = false
            }
            if restored { return true }
        }
    }

    /// The steps to undo (or to redo) of which a substance still lives. Read from a copy of the
    /// stack: a substance is asked whether it lives outside the lock, since the strong reference
    /// that asking takes may be the last one, and its deinit must not run under the lock (the bus
    /// records every commit under it).
    func liveCount(back: Bool) -> Int {
        let steps = stacks.withLock { back ? $0.undo : $0.redo }
        return steps.reduce(0) { $0 + ($1.isLive ? 1 : 0) }
    }

    /// Whether a step to undo (or to redo) of which a substance still lives is left: the newest
    /// steps are asked first, and the first live one answers.
    func hasLiveStep(back: Bool) -> Bool {
        let steps = stacks.withLock { back ? $0.undo : $0.redo }
        return steps.reversed().contains { $0.isLive }
    }
}
