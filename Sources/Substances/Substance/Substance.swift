import Archive
import FlaskLocking
@_spi(FlaskInternals) import FluxBus
import Synchronization

/// A store of one ``State`` value, mixed through the bus: the seed's "Redux style" store.
///
/// ```swift
/// let feed = Substance<FeedState>()
/// let settings = Substance<SettingsState>(name: "settings", archive: true)
/// ```
///
/// - `state` is the committed value: safe to read from any thread, a consistent snapshot.
/// - `prop` is the working copy inside a transaction (a mixer or a chain step), on the bus.
///
/// Every instance has its own identity: two instances never see each other's changes, named or
/// not. A substance is freed when nothing references it; its mixers and bindings go with it.
///
/// `@unchecked Sendable`: the committed state as other threads read it and the last default
/// archive key are behind locks; everything else that changes (the working copy, the bound
/// observers, the captured state) is `BusConfined`: touched only on the bus, whose items run one
/// at a time, which debug builds check; the archive flag is atomic.
open class Substance<S: State>: AnySubstance, @unchecked Sendable {
    /// The bus the substance mixes on.
    public let bus: Flux
    let plan: ReductionPlan
    /// The weak reference each commit's changes hold (made once: see ``SubstanceReference``).
    package let reference: SubstanceReference
    /// Reports an archive problem; made once, and holding the substance only weakly, so that a
    /// pending write neither allocates a closure per commit nor keeps the substance alive.
    let reportArchiveProblem: @Sendable (ArchiveProblem) -> Void
    /// Reports that the archive is written again after failing; made once, as `reportArchiveProblem`.
    let reportArchiveRecovery: @Sendable (ArchiveRecovery) -> Void
    /// The name given at creation, or `<State>#<n>`: made once, since tools (a journal, a logger)
    /// ask for it at every mix.
    private let defaultName: String
    private let archiveFlag: Atomic<Bool>
    /// Whether this substance's archive writes are patches (see `ArchivePatching`).
    let archivePatching = ArchivePatching()
    /// Whether a commit is between publishing its state and scheduling its archive write, which
    /// ``stored()`` waits out (see ``ArchiveScheduling``).
    let archiveScheduling = ArchiveScheduling()
    /// Where and when the substance archives, as given at creation; the archive hooks' defaults.
    public let archiveSettings: ArchiveSettings
    /// The default archive key and the key space and name it was built from. An archived substance
    /// asks for its key on every commit, and building it again (a string interpolation and an
    /// allocation) was about a fifth of such a commit's cost; the two overridable parts are still
    /// asked for every time, so the key follows them when they change.
    private let lastArchiveKey = LockedValue<(space: String, name: String, key: String)?>(nil)

    /// The working, committed and published states (see ``UnsafeStateSlots``).
    @usableFromInline final let slots: UnsafeStateSlots
    @usableFromInline final let inTransaction: BusConfined<Bool>
    /// Whether the substance is delivering a commit (on the bus). No transaction of it may begin
    /// meanwhile: it would commit inside the delivery, over the state the delivered changes read.
    /// A reaction that calls `defineMixers()` itself reaches the definitions then: they run no body
    /// and report the call (`ReactiveSubstance.bodyRuns` for the running mixer's, and
    /// `definedOutsideRun` for any reached outside a dispatch's run); anything else that begins a
    /// transaction traps in debug builds.
    // A stored property, read and written on the bus only (a delivery runs there): in a
    // `BusConfined` box, written after the delivery's call, the box was retained around the call
    // (scenario S1: docs/performance.md). Unchecked exclusivity: one thread, and no access
    // overlaps another.
    @usableFromInline @exclusivity(unchecked) final var isDelivering = false
    /// The changes of an earlier commit that were delivered only on the bus and that nobody held
    /// any more: refilled by the next commit instead of allocating (and later freeing) a new
    /// object. Held as the base class: naming `StateChanges<S>` here would look its metadata up at
    /// run time on every use.
    private final let spareChanges: BusConfined<SubstanceChanges?>
    /// Bound observers in binding order, held strongly until unbound (a reactor unbinds when it is
    /// detached or its owner goes away). An unbound slot is emptied at once and the list compacted
    /// when half of it is empty, so binding and unbinding cost O(1) amortized.
    private let observers: UnsafeObserverList
    private final let observerSlots: BusConfined<[ObjectIdentifier: Int]>
    private final let emptySlots: BusConfined<Int>
    /// How many of the bound observers count as reactors (the others are tools), for mix reports.
    private final let boundReactors: BusConfined<Int>
    /// The state remembered by `captureState()`.
    final let captured: BusConfined<S?>

    /// Creates a substance.
    ///
    /// - Parameters:
    ///   - name: a unique name, required to archive; unnamed substances get a unique generated name.
    ///   - archive: restore the archived state now and archive changes from now on.
    ///   - archiveSettings: where and when it archives (the key, the delays, the archiver), when
    ///     `archive` is true or ``shouldArchive`` is set later.
    ///   - bus: the bus to mix on; the shared one unless you isolate (tests, tools).
    public init(
        name: String? = nil, archive: Bool = false, archiveSettings: ArchiveSettings = ArchiveSettings(),
        bus: Flux = .current
    ) {
        let initial = S()
        self.bus = bus
        self.plan = ReductionPlan.cached(for: S.self)
        let reference = SubstanceReference(bus: bus, stateType: S.self)
        self.reference = reference
        self.defaultName = name ?? "\(S.self)#\(reference.serial)"
        self.archiveFlag = Atomic(archive)
        self.archiveSettings = archiveSettings
        self.slots = UnsafeStateSlots(initial, on: bus)
        self.inTransaction = BusConfined(false, on: bus, "Substance.inTransaction")
        self.spareChanges = BusConfined(nil, on: bus, "Substance's spare changes")
        self.observers = UnsafeObserverList(on: bus)
        self.observerSlots = BusConfined([:], on: bus, "Substance's bound observers")
        self.emptySlots = BusConfined(0, on: bus, "Substance's bound observers")
        self.boundReactors = BusConfined(0, on: bus, "Substance's bound observers")
        self.captured = BusConfined(nil, on: bus, "Substance's captured state")
        self.reportArchiveProblem = { problem in Substance.report(problem, of: reference) }
        self.reportArchiveRecovery = { recovery in Substance.report(recovery, of: reference) }
        reference.attach(self)
        SecretKeys.check(S.self, on: bus)
        if archive { restoreArchive() }
    }

    deinit {
        // No other thread can reach the substance any more. Spare changes that someone still
        // holds and that read their new state in the slots (see `settleSpareChanges()`) take the
        // slots over: whoever reads them keeps reading what nobody writes any more, with nothing
        // copied under a reader on another thread.
        if spareChanges.unchecked != nil, !isKnownUniquelyReferenced(&spareChanges.unchecked),
            spareChanges.unchecked?.adoptSlotsIfReadingThem(slots) == true
        {
            return
        }
        slots.free(S.self)
    }

    /// Creates an unnamed substance on the shared bus.
    public required convenience init() {
        self.init(name: nil, archive: false, archiveSettings: ArchiveSettings(), bus: .current)
    }

    /// The committed state: safe from any thread, a consistent snapshot of this substance. Two
    /// substances read from another thread are read at two moments, and a chain (or an undo) may
    /// commit between the reads. A task queued with `perform` reads them between work items; a
    /// bus reaction to a chain or an undo reads them with every substance of it committed.
    public var state: S {
        if bus.isCurrent, inTransaction.value {
            bus.report(
                .stateInsideTransaction,
                "\(nameInReports): `state` read inside a transaction\(CallerLocation.current().map { " at \($0)" } ?? "") "
                    + "shows the committed value; use `prop` for the working copy"
            )
        }
        return committedValue()
    }

    /// A copy of the committed state, from any thread.
    private func committedValue() -> S {
        slots.readPublished(S.self)
    }

    /// The working copy, inside a mixer or a chain step. Outside a transaction it reads the
    /// committed state, writes are discarded, and both are reported.
    ///
    /// Inlinable: a mixer body's every use of `prop` is then a check and a load where it is written.
    /// Read by address too: `self.prop.title` loads the title, where a getter copied the whole
    /// state (a retain and a release per reference in it) to read one property.
    public var prop: S {
        @inlinable
        unsafeAddress {
            if bus.isCurrent, inTransaction.value { return UnsafePointer(slots.working(S.self)) }
            return UnsafePointer(slotOutsideTransaction())
        }
        @inlinable
        unsafeMutableAddress {
            if bus.isCurrent, inTransaction.value { return slots.working(S.self) }
            return slotOutsideTransaction()
        }
    }

    /// `prop` used outside a transaction: reported, and this thread's copy of the committed state
    /// to read, or to write to in vain (see `DiscardedCopy`).
    @usableFromInline
    final func slotOutsideTransaction() -> UnsafeMutablePointer<S> {
        reportPropMisuse()
        return DiscardedCopy<S>.slot(holding: committedValue())
    }

    private func reportPropMisuse() {
        let place = CallerLocation.current().map { " at \($0)" } ?? ""
        bus.report(
            .propOutsideTransaction,
            "\(nameInReports): `prop` used outside a transaction\(place); writes are discarded. "
                + "Mix it in a mixer or a chain step")
    }

    // MARK: Naming

    /// The substance's name: the one given at creation, or `<State>#<n>`, unique per instance.
    open func name() -> String {
        defaultName
    }

    /// The state type's name, for diagnostics.
    public var stateTypeName: String { "\(S.self)" }

    /// Whether `key` names a property of the state, a nested one, or a key below a dictionary.
    public func isValid(key: String) -> Bool { plan.isValid(key: key) }

    // MARK: Binding

    /// Delivers every commit to `observer` from the next work item on, until ``unbind(_:)``.
    public func bind(_ observer: any SubstanceObserver) {
        let id = ObjectIdentifier(observer)
        bus.performUpkeep { [self] in
            guard observerSlots.value[id] == nil else { return }
            observerSlots.value[id] = observers.count
            let binding = ObserverBinding(observer)
            observers.append(binding)
            if binding.countsAsReactor { boundReactors.value += 1 }
        }
    }

    /// Limits a bound observer to the commits that change one of `keys` (nil: every commit).
    public func setInterest(of observer: any SubstanceObserver, keys: [String]?) {
        setInterest(of: observer, entries: keys.flatMap(plan.interest(in:)))
    }

    /// Limits a bound observer to the commits that change one of `entries` (nil: every commit),
    /// from the next work item on.
    private func setInterest(of observer: any SubstanceObserver, entries: PlanEntrySet?) {
        let id = ObjectIdentifier(observer)
        bus.performUpkeep { [self] in
            guard let slot = observerSlots.value[id], let binding = observers[slot] else { return }
            observers.replace(at: slot, with: binding.with(interest: entries))
        }
    }

    /// Stops delivering commits to `observer` from the next work item on.
    public func unbind(_ observer: any SubstanceObserver) {
        unbind(id: ObjectIdentifier(observer))
    }

    /// Delivers every commit that changes one of `keys` (every commit for nil) to `observer`, under
    /// the identity `id`, in place of what was bound under it (keeping its place in the binding
    /// order), or last. Now: on the bus, between work items (an exclusive-lane task), checked in
    /// debug builds. For an observer that stands in for another object (a reactor's route).
    package func bindOnBus(_ observer: any SubstanceObserver, as id: ObjectIdentifier, keys: [String]?) {
        bus.assertIsCurrent("\(nameInReports): bindOnBus(_:as:keys:)")
        let binding = ObserverBinding(observer, interest: keys.flatMap(plan.interest(in:)))
        if let slot = observerSlots.value[id] {
            if observers[slot]?.countsAsReactor == true { boundReactors.value -= 1 }
            observers.replace(at: slot, with: binding)
        } else {
            observerSlots.value[id] = observers.count
            observers.append(binding)
        }
        if binding.countsAsReactor { boundReactors.value += 1 }
    }

    /// Stops delivering commits to what is bound under `id`, from the next work item on.
    package func unbind(id: ObjectIdentifier) {
        bus.performUpkeep { [self] in
            guard let slot = observerSlots.value.removeValue(forKey: id) else { return }
            if observers[slot]?.countsAsReactor == true { boundReactors.value -= 1 }
            observers.remove(at: slot)
            emptySlots.value += 1
            if emptySlots.value > 8 && emptySlots.value * 2 > observers.count { compactObservers() }
        }
    }

    /// Drops the empty slots of unbound observers (on the bus).
    private func compactObservers() {
        // The identities in binding order (an observer may be bound under another object's).
        let ids = observerSlots.value.sorted { $0.value < $1.value }.map(\.key)
        observers.removeEmptySlots()
        observerSlots.value.removeAll(keepingCapacity: true)
        for (slot, id) in ids.enumerated() { observerSlots.value[id] = slot }
        emptySlots.value = 0
    }

    /// The number of bound observers, counted on the bus (for tests and diagnostics).
    public func observerCount() async -> Int {
        await withCheckedContinuation { continuation in
            bus.performUpkeep { [self] in continuation.resume(returning: observerSlots.value.count) }
        }
    }

    // MARK: Transactions (package: on the bus only)

    /// Opens a transaction: `prop` becomes a working copy of the committed state. Nothing happens
    /// if one is open. Bus only (a debug build traps elsewhere).
    package final func beginTransaction() {
        bus.assertIsCurrent("\(nameInReports): beginTransaction()")
        // A transaction begun while this substance delivers its last commit would commit inside
        // that delivery, and overwrite the state its changes read. A reaction that calls
        // `defineMixers()` is stopped before (`ReactiveSubstance.bodyRuns`); nothing else may.
        assert(
            !isDelivering,
            "\(nameInReports): a transaction began while this substance delivered its last commit; mix from a "
                + "reaction by dispatching, which runs after the delivery")
        guard !inTransaction.value else { return }
        slots.beginTransaction(S.self)
        inTransaction.value = true
    }

    /// Commits the working copy: publishes it as `state` and returns the changes, nil if none (or
    /// none computed, when nobody observes), marked with the mix that made them (`source`). While
    /// an awaited mix runs, records the outcome (a `MixOutcome.Entry`) in the bus's active receipt.
    /// Bus only.
    package final func commitTransaction(
        event: UnsafePointer<FluxEvent>? = nil, chain: Bool = false, source: MixSource? = nil
    ) -> SubstanceChanges? {
        bus.assertIsCurrent("\(nameInReports): commitTransaction()")
        guard inTransaction.value else { return nil }
        inTransaction.value = false
        // The working copy is the committed state now: the slots trade places, and the previous
        // state, now in the working slot, is compared with it and then overwritten by the next
        // `beginTransaction`.
        let archiving = !archiveDisabled()
        if archiving { archiveScheduling.willPublish() }
        let (previous, committed) = slots.commit(S.self)
        settleSpareChanges()
        // An archive that keeps a log is written what changed (`ArchivePatchCapture`), found by
        // reducing, unless this state's JSON is small or its encoding was found not to be
        // property by property (`ArchivePatching`).
        let patching =
            archiving && archivePatching.patches && archiver().keepsLogs
        let receipt = bus.activeReceipt
        // Nothing is reduced when nobody observes and the archive needs no patch. Last commit's
        // changes object is refilled when it never left the bus and nobody held it after its
        // delivery (see `recycle`); refilling may move the previous state into it, but only reads
        // the committed one.
        let changes =
            observerSlots.value.isEmpty && receipt == nil && !patching
            ? nil
            : StateReducer.reduce(
                previous, committed, of: S.self, plan: plan, reference: reference, recycling: &spareChanges.value)
        // The source: a dispatch's event, read where it lies while the commit is delivered; the
        // chain or the task the bus runs; or the one given.
        if let source {
            changes?.setSource(source, serial: bus.workItemSerial)
        } else {
            let place: SubstanceChanges.SourcePlace =
                event != nil ? .event : chain ? .runningChain : bus.isRunningMix ? .runningTask : .none
            changes?.setSource(place, event: event, serial: bus.workItemSerial)
        }
        if archiving {
            scheduleArchiveWrite(of: committed.value(S.self), changes: changes, patching: patching)
            archiveScheduling.didSchedule()
        }
        if let receipt { record(changes, in: receipt) }
        return changes
    }

    /// Records a commit's outcome in the receipt of the mix running now. Out of line: a mix with
    /// no receipt (the usual one) does not pay for it.
    @inline(never)
    private final func record(_ changes: SubstanceChanges?, in receipt: FluxReceipt) {
        guard let changes else {
            return receipt.record(MixOutcome.Entry(substance: self, result: .unchanged, observersNotified: 0))
        }
        // Made where the receipt keeps it: an entry made first was copied into the record, its
        // references retained, then released (scenario S1j).
        let entry: any Sendable = MixOutcome.Entry(
            substance: self, result: .committed(changes), observersNotified: observerSlots.value.count,
            reactorsNotified: boundReactors.value)
        if receipt.crossesThreads {
            // An awaited outcome crosses to the task that awaits it.
            changes.markEscaped()
            receipt.record(entry)
        } else {
            // A middleware's report is read on the bus: the changes are lent, and escape only if
            // a middleware reads the records, after the delivery: their source is kept now.
            changes.keepSource()
            receipt.record(entry, lending: changes)
        }
    }

    /// Discards the working copy: the state stays exactly as it was. While an awaited mix runs,
    /// records the abort in the bus's active receipt. Bus only.
    package final func abortTransaction() {
        bus.assertIsCurrent("\(nameInReports): abortTransaction()")
        guard inTransaction.value else { return }
        inTransaction.value = false
        slots.abort(S.self)
        bus.activeReceipt?.record(MixOutcome.Entry(substance: self, result: .aborted))
    }

    /// Delivers a commit's changes to the bound observers. Bus only.
    package final func deliver(_ changes: consuming SubstanceChanges, lock: FluxLock?) {
        bus.assertIsCurrent("\(nameInReports): deliver(_:lock:)")
        // An observer that declared its keys skips commits that changed none of them, unless the
        // commit hands over a lock that its handler must be able to release. A commit without plan
        // entries (a state reduced through its Codable encoding) is for every observer.
        let changed = changes.entries.mask
        isDelivering = true
        observers.deliver(
            changes, lock: lock, changedMask: changed == 0 ? ~0 : changed, everyBinding: lock != nil)
        isDelivering = false
        recycle(changes)
    }

    /// Keeps delivered changes as the candidate to refill at the next commit, when they have not left
    /// the bus (no stream, main-actor reaction, receipt or observer of its own took them: see
    /// ``SubstanceChanges/markEscaped()``). The next commit refills them only if they still have
    /// not, and nobody else holds them then (a middleware's report may hold them until the mix
    /// ends). Reactions and changes cannot leave a bus handler (they are not `Sendable`), so every
    /// earlier reader ran on this bus, before the refill: it races with no one, and the thread
    /// sanitizer sees why.
    private func recycle(_ changes: consuming SubstanceChanges) {
        guard spareChanges.value == nil, !changes.hasEscaped, changes.substanceIdentity == ObjectIdentifier(self),
            ObjectIdentifier(type(of: changes)) == ObjectIdentifier(plan.changesClass)
        else {
            // Not kept: whoever still holds the changes reads their new state in them, not in
            // the slot the next commit reuses, and their source, not the dispatch's event.
            changes.keepSource()
            return changes.materializeNew()
        }
        // The dispatch's event goes with its item.
        changes.forgetSource()
        spareChanges.value = changes
    }

    /// At a commit, before the previous state's slot can be reused: spare changes that someone
    /// still holds (beside this substance) copy their new state out of it, and are not refilled
    /// (see `StateChanges`). The commit's one check of who holds the spare: the reducer refills
    /// what is left without asking again. On the bus.
    @inline(__always)
    private func settleSpareChanges() {
        if spareChanges.value != nil, !isKnownUniquelyReferenced(&spareChanges.value) { settleHeldSpareChanges() }
    }

    /// ``settleSpareChanges()`` for spare changes someone holds. Out of line: the rare case.
    @inline(never)
    private func settleHeldSpareChanges() {
        spareChanges.value?.materializeNew()
        spareChanges.value = nil
    }

    /// The committed state as the bus sees it (on the bus only).
    package var committedState: S { slots.committed(S.self) }

    /// Sets the state during initialization, before anything can observe it.
    func setInitialState(_ value: S) {
        slots.setInitial(value)
    }

    /// Replaces the committed state in one transaction; observers and reactors receive the
    /// difference as a commit of `source` (a task: a rollback, a restore, an undo, a replay, a jump
    /// in time), like any other. Call it on the bus, inside a mix of its own
    /// (`Flux.performAndWait(mix:_:)`, or `Flux.perform(mix:)`): it is a transaction, and checked as
    /// one in debug builds.
    public func replaceState(with value: S, lock: FluxLock? = nil, source: MixSource? = nil) {
        if let changes = commitState(value, source: source) { deliver(changes, lock: lock) }
    }

    /// Commits `value` as the state in one transaction, and returns the changes for the caller to
    /// deliver (nil when nothing observable changed, or nobody looks): what several substances
    /// that come back together commit first, each, before any of them delivers (an undo's step).
    final func commitState(_ value: S, source: MixSource?) -> SubstanceChanges? {
        beginTransaction()
        slots.working(S.self).pointee = value
        return commitTransaction(source: source)
    }

    // MARK: Archive hooks (overridable; see Substance+Archive.swift)

    /// The key space of the archive key (``ArchiveSettings/keySpace``, `"1"` by default).
    open func archiveKeySpace() -> String { archiveSettings.keySpace }

    /// The archive key (``ArchiveSettings/key``, or `"Fx.<keySpace>.<name>"` by default).
    open func archiveKey() -> String {
        if let key = archiveSettings.key { return key }
        let space = archiveKeySpace()
        let name = name()
        return lastArchiveKey.withLock { last in
            if let last, last.space == space, last.name == name { return last.key }
            let key = "Fx.\(space).\(name)"
            last = (space, name, key)
            return key
        }
    }

    /// Seconds of quiet after the last change before the state is written
    /// (``ArchiveSettings/delay``, 2 by default).
    open func archiveDelay() -> Double { archiveSettings.delay }

    /// The most seconds a change waits to be written while changes keep coming
    /// (``ArchiveSettings/maxDelay``, 5 by default): the bound on what a crash or a kill can lose.
    open func archiveMaxDelay() -> Double { archiveSettings.maxDelay }

    /// Whether archiving is off (by default, when ``shouldArchive`` is false).
    open func archiveDisabled() -> Bool { !shouldArchive }

    /// The archiver to write with (``ArchiveSettings/archiver``, or `Archiver.shared` by default:
    /// the app's default store).
    open func archiver() -> Archiver { archiveSettings.archiver ?? .shared }

    /// Whether changes are archived. Set at creation by `archive:`; may be changed at any time.
    public var shouldArchive: Bool {
        get { archiveFlag.load(ordering: .relaxed) }
        set { archiveFlag.store(newValue, ordering: .relaxed) }
    }
}
