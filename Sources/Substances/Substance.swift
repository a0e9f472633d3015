import Archive
import FluxBus
import Synchronization

/// A store of one ``State`` value, mixed through the bus: the seed's "Redux style" store.
///
/// ```swift
/// class Feed: Substance<FeedState> {}
/// let feed = Feed()
/// let settings = Substance<SettingsState>(name: "settings", archive: true)
/// ```
///
/// - `state` is the committed value: safe to read from any thread, a consistent snapshot.
/// - `prop` is the working copy inside a transaction (a mixer or a chain step), on the bus.
///
/// Every instance has its own identity: two instances never see each other's changes, named or
/// not. A substance is freed when nothing references it; its mixers and bindings go with it.
///
/// `@unchecked Sendable`: the committed state and the last default archive key are read behind
/// locks; everything else that changes (the working copy, the bound observers, the captured state)
/// is touched only on the bus, whose items run one at a time; the archive flag is atomic.
open class Substance<S: State>: AnySubstance, @unchecked Sendable {
    public let bus: Flux
    let plan: ReductionPlan
    /// The weak reference each commit's changes hold (made once: see ``SubstanceReference``).
    let reference: SubstanceReference
    /// Reports an archive problem; made once, and holding the substance only weakly, so that a
    /// pending write neither allocates a closure per commit nor keeps the substance alive.
    let reportArchiveProblem: @Sendable (ArchiveProblem) -> Void
    /// Guards which slot holds the committed state (`previousSlot`, read there by other threads):
    /// the bus swaps the slots under it at every commit and otherwise writes only into the working
    /// slot, so a commit publishes its state without copying it. Held for a pointer swap or a
    /// reader's copy, so a flag is enough.
    private let committedLock = FlagLock()
    private let givenName: String?
    private let serial: UInt64
    private let archiveFlag: Atomic<Bool>
    /// The default archive key and the key space and name it was built from, read and written
    /// under `archiveKeyLock`. An archived substance asks for its key on every commit, and building
    /// it again (a string interpolation and an allocation) was about a fifth of such a commit's
    /// instructions; the two overridable parts are still asked for every time, so the key follows
    /// them when they change.
    @exclusivity(unchecked) private var lastArchiveKey: (space: String, name: String, key: String)?
    private let archiveKeyLock = FlagLock()

    // Bus-confined: only read and written by work items on `bus`.
    /// The working copy lives in a slot allocated once, so that `prop` can hand out its address:
    /// a `_modify` accessor over a generic stored property allocated and freed its coroutine frame
    /// on every use (two mallocs per mixer body). A commit swaps it with `previousSlot` instead of
    /// copying the state from one to the other.
    // Written only by the bus, and only under `committedLock`; the bus reads it without the lock.
    @exclusivity(unchecked) @usableFromInline final var workingSlot = UnsafeMutablePointer<S>.allocate(capacity: 1)
    /// Copies handed to `prop` writes outside a transaction (misuse, reported); freed with the
    /// substance.
    private let discardedSlots = LockedValue<[UnsafeMutablePointer<S>]>([])
    /// The changes of an earlier commit that nobody held any more once delivered: refilled by the
    /// next commit instead of allocating (and later freeing) a new object.
    /// Held as the base class: naming `StateChanges<S>` here would look its metadata up at run time
    /// on every use.
    @exclusivity(unchecked) private final var spareChanges: SubstanceChanges?
    /// False under the thread sanitizer, which cannot see why a refill is safe (see
    /// ``ThreadSanitizer``).
    private let recyclesChanges = !ThreadSanitizer.isActive
    /// The committed state, in a slot allocated once: the reducer compares it with the working
    /// copy in place, without copying either; other threads read it under `committedLock`.
    // Written only by the bus, and only under `committedLock`; the bus reads it without the lock.
    @exclusivity(unchecked) private final var previousSlot = UnsafeMutablePointer<S>.allocate(capacity: 1)
    @exclusivity(unchecked) @usableFromInline final var inTransaction = false
    /// Bound observers in binding order, held strongly until unbound (a reactor unbinds when it is
    /// detached or its owner goes away). An unbound slot is emptied at once and the list compacted
    /// when half of it is empty, so binding and unbinding cost O(1) amortized.
    private let observers = BoundObserverList()
    @exclusivity(unchecked) private final var observerSlots: [ObjectIdentifier: Int] = [:]
    @exclusivity(unchecked) private final var emptySlots = 0
    @exclusivity(unchecked) final var captured: S?

    /// Creates a substance.
    ///
    /// - Parameters:
    ///   - name: a unique name, required to archive; unnamed substances get a unique generated name.
    ///   - archive: restore the archived state now and archive changes from now on.
    ///   - bus: the bus to mix on; the shared one unless you isolate (tests, tools).
    public init(name: String? = nil, archive: Bool = false, bus: Flux = .shared) {
        let initial = S()
        self.bus = bus
        self.plan = ReductionPlan.cached(for: S.self)
        self.givenName = name
        self.serial = substanceSerial.add(1, ordering: .relaxed).newValue
        self.archiveFlag = Atomic(archive)
        self.workingSlot.initialize(to: initial)
        self.previousSlot.initialize(to: initial)
        let reference = SubstanceReference(bus: bus, stateType: S.self)
        self.reference = reference
        self.reportArchiveProblem = { problem in Substance.report(problem, of: reference) }
        reference.attach(self)
        if archive { restoreArchive() }
    }

    deinit {
        workingSlot.deinitialize(count: 1)
        workingSlot.deallocate()
        previousSlot.deinitialize(count: 1)
        previousSlot.deallocate()
        for slot in discardedSlots.withLock({ $0 }) {
            slot.deinitialize(count: 1)
            slot.deallocate()
        }
    }

    /// Creates an unnamed substance on the shared bus.
    public required convenience init() {
        self.init(name: nil, archive: false, bus: .shared)
    }

    /// The committed state: safe from any thread, a consistent snapshot.
    public var state: S {
        if bus.isCurrent, inTransaction {
            bus.report(
                .stateInsideTransaction,
                "\(name()): `state` read inside a transaction shows the committed value; use `prop` for the working copy"
            )
        }
        return committedValue()
    }

    /// A copy of the committed state, from any thread.
    private func committedValue() -> S {
        committedLock.lock()
        defer { committedLock.unlock() }
        return previousSlot.pointee
    }

    /// The working copy, inside a mixer or a chain step. Outside a transaction it reads the
    /// committed state, writes are discarded, and both are reported.
    ///
    /// Inlinable: a mixer body's every use of `prop` is then a check and a load where it is written.
    public var prop: S {
        @inlinable
        get {
            if bus.isCurrent, inTransaction { return workingSlot.pointee }
            return propOutsideTransaction()
        }
        @inlinable
        unsafeMutableAddress {
            if bus.isCurrent, inTransaction { return workingSlot }
            return slotOutsideTransaction()
        }
    }

    /// `prop` read outside a transaction: reported, and the committed state.
    @usableFromInline
    final func propOutsideTransaction() -> S {
        reportPropMisuse()
        return committedValue()
    }

    /// `prop` written outside a transaction: reported, and a copy nobody reads to write to.
    @usableFromInline
    final func slotOutsideTransaction() -> UnsafeMutablePointer<S> {
        reportPropMisuse()
        // Writes go to a copy nobody reads; it is kept until the substance goes, since the
        // caller writes through the address after this returns.
        let discarded = UnsafeMutablePointer<S>.allocate(capacity: 1)
        discarded.initialize(to: committedValue())
        discardedSlots.withLock { $0.append(discarded) }
        return discarded
    }

    private func reportPropMisuse() {
        bus.report(
            .propOutsideTransaction,
            "\(name()): `prop` used outside a transaction; writes are discarded. Mix it in a mixer or a chain step")
    }

    // MARK: Naming

    /// The substance's name: the one given at creation, or `<State>#<n>`, unique per instance.
    open func name() -> String {
        givenName ?? "\(S.self)#\(serial)"
    }

    public var stateTypeName: String { "\(S.self)" }

    public func isValid(key: String) -> Bool { plan.isValid(key: key) }

    // MARK: Binding

    public func bind(_ observer: any SubstanceObserver) {
        let id = ObjectIdentifier(observer)
        bus.performExclusive { [self] in
            guard observerSlots[id] == nil else { return }
            observerSlots[id] = observers.count
            observers.append(BoundObserver(binding: ObserverBinding(observer)))
        }
    }

    public func setInterest(of observer: any SubstanceObserver, keys: [String]?) {
        let id = ObjectIdentifier(observer)
        let interest = keys.flatMap(plan.interest(in:))
        bus.performExclusive { [self] in
            guard let slot = observerSlots[id] else { return }
            observers[slot].filtersByKey = interest != nil
            observers[slot].interest = interest ?? PlanEntries()
        }
    }

    public func unbind(_ observer: any SubstanceObserver) {
        let id = ObjectIdentifier(observer)
        bus.performExclusive { [self] in
            guard let slot = observerSlots.removeValue(forKey: id) else { return }
            observers[slot].binding = nil
            emptySlots += 1
            if emptySlots > 8 && emptySlots * 2 > observers.count { compactObservers() }
        }
    }

    /// Drops the empty slots of unbound observers (on the bus).
    private func compactObservers() {
        observers.removeUnbound()
        observerSlots.removeAll(keepingCapacity: true)
        for slot in 0..<observers.count {
            if let binding = observers[slot].binding { observerSlots[ObjectIdentifier(binding.observer)] = slot }
        }
        emptySlots = 0
    }

    /// The number of bound observers, counted on the bus (for tests and diagnostics).
    public func observerCount() async -> Int {
        await withCheckedContinuation { continuation in
            bus.performExclusive { [self] in continuation.resume(returning: observerSlots.count) }
        }
    }

    // MARK: Transactions (on the bus)

    public func beginTransaction() {
        guard !inTransaction else { return }
        workingSlot.pointee = previousSlot.pointee
        inTransaction = true
    }

    public func commitTransaction() -> SubstanceChanges? {
        guard inTransaction else { return nil }
        inTransaction = false
        // The working copy is the committed state now: the slots trade places, and the previous
        // state, now in the working slot, is compared with it and then overwritten by the next
        // `beginTransaction`. (Not `swap(_:_:)`: called unspecialized, it would look up the
        // pointer type's metadata.)
        committedLock.lock()
        let previous = previousSlot
        previousSlot = workingSlot
        workingSlot = previous
        committedLock.unlock()
        if !archiveDisabled() { scheduleArchiveWrite(of: previousSlot.pointee) }
        let receipt = bus.activeReceipt
        // Nothing is reduced when nobody observes. Last commit's changes object is refilled when
        // nobody held it after its delivery (see `recycle`); refilling may move the previous state
        // into it, but only reads the committed one.
        let changes =
            observerSlots.isEmpty && receipt == nil
            ? nil
            : StateReducer.reduce(workingSlot, previousSlot, plan: plan, reference: reference, recycling: &spareChanges)
        if let receipt {
            let result: MixOutcome.Result = changes.map { .committed($0) } ?? .unchanged
            let notified = changes == nil ? 0 : observerSlots.count
            receipt.record(MixOutcome.Entry(substance: self, result: result, observersNotified: notified))
        }
        return changes
    }

    public func abortTransaction() {
        guard inTransaction else { return }
        inTransaction = false
        workingSlot.pointee = previousSlot.pointee
        bus.activeReceipt?.record(MixOutcome.Entry(substance: self, result: .aborted))
    }

    public func deliver(_ changes: consuming SubstanceChanges, lock: FluxLock?) {
        // Observers change only through exclusive-lane tasks, never while this loop runs, so the
        // list's storage is read in place, and each binding borrowed, without retaining either.
        let bound = observers.elements
        for index in 0..<observers.count {
            // An observer that declared its keys skips commits that changed none of them, unless
            // the commit hands over a lock that its handler must be able to release.
            if lock == nil, !bound[index].accepts(changes) { continue }
            bound[index].binding.map(Unmanaged.passUnretained)?._withUnsafeGuaranteedRef {
                $0.observer.substance(self, didCommit: changes, lock: lock)
            }
        }
        recycle(changes)
    }

    /// Keeps delivered changes that nobody else holds (no reaction, stream or receipt kept them) for
    /// the next commit. A count of one means no other thread holds the object, and any that did
    /// has released it, with the ordering a release gives.
    private func recycle(_ changes: consuming SubstanceChanges) {
        var changes = changes
        guard recyclesChanges, spareChanges == nil, changes.substanceIdentity == ObjectIdentifier(self),
            ObjectIdentifier(type(of: changes)) == ObjectIdentifier(plan.changesClass),
            isKnownUniquelyReferenced(&changes)
        else { return }
        spareChanges = changes
    }

    /// The committed state as the bus sees it (on the bus only).
    var committedState: S { previousSlot.pointee }

    /// Sets the state during initialization, before anything can observe it.
    func setInitialState(_ value: S) {
        workingSlot.pointee = value
        committedLock.lock()
        previousSlot.pointee = value
        committedLock.unlock()
    }

    /// Replaces the committed state in one transaction, as a bus item; observers react to the
    /// difference. Used by rollback and restore.
    func replaceState(with value: S, lock: FluxLock? = nil) {
        beginTransaction()
        workingSlot.pointee = value
        if let changes = commitTransaction() { deliver(changes, lock: lock) }
    }

    // MARK: Archive hooks (overridable; see Substance+Archive.swift)

    /// The key space of the archive key (`"1"` by default).
    open func archiveKeySpace() -> String { "1" }

    /// The archive key (`"Fx.<keySpace>.<name>"` by default).
    open func archiveKey() -> String {
        let space = archiveKeySpace()
        let name = name()
        archiveKeyLock.lock()
        defer { archiveKeyLock.unlock() }
        if let last = lastArchiveKey, last.space == space, last.name == name { return last.key }
        let key = "Fx.\(space).\(name)"
        lastArchiveKey = (space, name, key)
        return key
    }

    /// Seconds of quiet after the last change before the state is written (2 by default).
    open func archiveDelay() -> Double { 2.0 }

    /// The most seconds a change waits to be written while changes keep coming
    /// (`Archiver.defaultMaxDelay`, 5, by default): the bound on what a crash or a kill can lose.
    open func archiveMaxDelay() -> Double { Archiver.defaultMaxDelay }

    /// Whether archiving is off (by default, when ``shouldArchive`` is false).
    open func archiveDisabled() -> Bool { !shouldArchive }

    /// The archiver to write with (`Archiver.shared` by default: the app's default store).
    open func archiver() -> Archiver { .shared }

    /// Whether changes are archived. Set at creation by `archive:`; may be changed at any time.
    public var shouldArchive: Bool {
        get { archiveFlag.load(ordering: .relaxed) }
        set { archiveFlag.store(newValue, ordering: .relaxed) }
    }
}

private let substanceSerial = Atomic<UInt64>(0)

extension ReductionPlan {
    private static let cache = LockedValue<[ObjectIdentifier: ReductionPlan]>([:])

    /// The plan of a state type, made on first use.
    static func cached<S: State>(for type: S.Type) -> ReductionPlan {
        let id = ObjectIdentifier(type)
        if let plan = cache.withLock({ $0[id] }) { return plan }
        let plan = ReductionPlan(for: type)
        return cache.withLock { cache in
            if let existing = cache[id] { return existing }
            cache[id] = plan
            return plan
        }
    }
}
