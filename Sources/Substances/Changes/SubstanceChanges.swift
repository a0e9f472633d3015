import FlaskLocking
@_spi(FlaskInternals) import FluxBus
import Foundation
import Synchronization

// The changes of a commit (`SubstanceChanges`, public, shared by every reactor bound to the
// substance) and their typed subclass for a `Substance<S>` (`StateChanges<S>`, which holds the two
// states): one file, since the subclass is what the base class's methods dispatch to.

/// The keys one commit changed in one substance, with their old and new values.
///
/// Made once per commit and shared by every reactor bound to the substance. Values are read only
/// when asked for.
///
/// `@unchecked Sendable`: it holds the two state snapshots, which are `Sendable` values, and is
/// immutable once it may be read off the bus. Until then, its substance may refill it for a later
/// commit (see `Substance.recycle`), on the bus, once nobody holds it: a reaction's changes reach
/// only handlers on the bus (a `FlaskReaction` is not `Sendable`), and whatever hands them to
/// another thread (a change stream, a main-actor reaction, an awaited outcome, `reaction.changes`)
/// marks them escaped first, which rules the refill out.
public class SubstanceChanges: FluxLending, @unchecked Sendable {
    /// The substance, held weakly through its shared reference: changes may be kept (a change
    /// stream's buffer, a main-queue reaction) longer than anyone keeps the substance, and must not
    /// keep it alive.
    private let reference: SubstanceReference
    /// The identity of the substance that changed.
    public let substanceIdentity: ObjectIdentifier
    /// A number that names the substance that changed, which no other substance of the process has,
    /// ever: unlike ``substanceIdentity`` (an address, which a substance made after this one is
    /// freed may have), it tells two substances apart without holding either (a journal tells the
    /// substance of the last commit by it).
    public var substanceSerial: UInt64 { reference.serial }
    /// The state type's reduction plan (nil without one). Stored here, not in the subclass, so that
    /// a reaction's key lookup makes no dynamic call.
    @usableFromInline let plan: ReductionPlan?
    /// Changed plan entries (layout path), filled by the reducer on the bus before the object is
    /// handed out, then only read; so the runtime exclusivity checks are not needed.
    @usableFromInline @exclusivity(unchecked) final var entries = PlanEntrySet()
    /// Whether these changes may be read off the bus: set, on the bus, before they are handed to
    /// another thread; never cleared.
    private let escaped = Atomic<Bool>(false)
    /// Where the commit's source is (see ``Commit/mix``), set by the commit on the bus before
    /// anything reads the changes: a dispatch's event where the dispatch keeps it (``sourceEvent``,
    /// valid while the commit is delivered), the chain or task the bus is running (valid as long),
    /// or a copy of its own (``keptSource``). A dispatch, a chain step, pay a store or two for
    /// their commit's source; only what reads it, or keeps the changes past the delivery, copies it
    /// (``keepSource()``: before they leave the bus, or outlive the delivery). Scenarios S1, S6.
    @exclusivity(unchecked) final var sourcePlace = SourcePlace.none
    /// The dispatch's event, when ``sourcePlace`` is `.event`.
    @exclusivity(unchecked) final var sourceEvent: UnsafePointer<FluxEvent>?
    /// The source kept, when ``sourcePlace`` is `.kept`.
    @exclusivity(unchecked) final var keptSource: MixSource?
    /// The bus's number of the work item that made the commit (see ``Commit/serial``).
    @exclusivity(unchecked) final var serial: UInt64 = 0

    /// Where a commit's source is.
    enum SourcePlace: UInt8 {
        /// Nowhere: a commit made outside a mix, or changes recycled since their delivery.
        case none
        /// The dispatch's event, at ``SubstanceChanges/sourceEvent``.
        case event
        /// The chain the bus is running.
        case runningChain
        /// The task that mixes the bus is running (a rollback, an undo).
        case runningTask
        /// ``SubstanceChanges/keptSource``.
        case kept
    }

    /// Which mix made the commit (see ``Commit/mix``).
    final var source: MixSource {
        switch sourcePlace {
        case .none: return .unknown
        case .kept: return keptSource ?? .unknown
        case .event:
            #if DEBUG
                busOfSubstance.assertIsCurrent(
                    "a commit's source read off the bus before its changes were marked escaped")
            #endif
            return sourceEvent.map { MixSource($0.pointee) } ?? .unknown
        case .runningChain, .runningTask:
            let running = busOfSubstance.runningMix
            return MixSource(
                kind: sourcePlace == .runningChain ? .chain : .task, name: running?.label ?? "",
                origin: running?.origin)
        }
    }

    /// Marks where the commit's source is (on the bus, at the commit).
    @inline(__always)
    final func setSource(_ place: SourcePlace, event: UnsafePointer<FluxEvent>?, serial: UInt64) {
        sourcePlace = place
        sourceEvent = event
        self.serial = serial
    }

    /// Gives the commit a source of its own.
    final func setSource(_ source: MixSource, serial: UInt64) {
        keptSource = source
        sourcePlace = .kept
        sourceEvent = nil
        self.serial = serial
    }

    /// Copies the source where it lies into ``keptSource``, before the changes outlive the
    /// delivery (or leave the bus).
    final func keepSource() {
        guard sourcePlace != .kept, sourcePlace != .none else { return }
        keptSource = source
        sourcePlace = .kept
        sourceEvent = nil
    }

    /// Forgets where the source lay, as the dispatch's event (or the running task) goes: recycled
    /// changes keep a source only if they kept a copy (lent to a report, say).
    @inline(__always)
    final func forgetSource() {
        if sourcePlace != .kept { sourcePlace = .none }
    }

    init(reference: SubstanceReference, plan: ReductionPlan? = nil) {
        self.reference = reference
        self.substanceIdentity = reference.identity
        self.plan = plan
    }

    /// Marks the changes as read off the bus from now on, so that they are never refilled: call it
    /// on the bus (in an observer's ``SubstanceObserver/didCommit(_:)``, say) before keeping them
    /// past the delivery or handing them to another thread. Until then they read the new state
    /// where the substance keeps it, which the next commit overwrites; marking copies it out once.
    /// Cheap when already marked (`FluxMixReport.commits` and `reaction.commit` mark them).
    public final func markEscaped() {
        if !escaped.load(ordering: .relaxed) {
            materializeNew()
            keepSource()
            escaped.store(true, ordering: .relaxed)
        }
    }

    /// Copies the new state into the object where it is read in the substance's slot (see
    /// `StateChanges`); nothing for changes without a state type.
    func materializeNew() {}

    /// Takes over the slots of a substance that is going, if the new state is read in one of them
    /// (see `StateChanges`); false otherwise, and for changes without a state type.
    func adoptSlotsIfReadingThem(_ slots: UnsafeStateSlots) -> Bool { false }

    /// The bus of the substance whose commit these are.
    final var busOfSubstance: Flux { reference.bus }

    /// Whether ``markEscaped()`` was called.
    final var hasEscaped: Bool { escaped.load(ordering: .relaxed) }

    /// A middleware read the report record that lent these changes: they are its to keep.
    package final func recordWasRead() {
        markEscaped()
    }

    /// The substance that changed. If it has gone away since, a stand-in with its bus and state
    /// type (and no state) is returned rather than crashing.
    public var substance: any AnySubstance {
        reference.substance ?? GoneSubstance(bus: reference.bus, stateTypeName: "\(reference.stateType)")
    }

    /// The changed keys, parents included (`info` and `info.counter`).
    public var keys: [String] { keySnapshot.keys }

    /// Whether `key` changed.
    public func contains(_ key: String) -> Bool { slot(of: key) != nil }

    /// The change of `key`, if it changed.
    public func change(_ key: String) -> SubstanceChange? {
        slot(of: key).map { SubstanceChange(changes: self, slot: $0) }
    }

    /// Every change, in the order of the state's properties.
    public var all: [SubstanceChange] { (0..<count).map { SubstanceChange(changes: self, slot: $0) } }

    /// The number of changed keys.
    public var count: Int { 0 }

    /// Whether nothing changed.
    public var isEmpty: Bool { count == 0 }

    /// The changed key at `slot` (from 0 to ``count``, in the order of ``all``), without making
    /// the others.
    public func key(at slot: Int) -> String { "" }
    func slot(of key: String) -> Int? { nil }

    // MARK: Keys by entry (package): reactions look keys up in the plan's key table, then compare
    // integers.

    /// What ``lookUp(_:)`` found.
    @usableFromInline
    package enum EntryLookup {
        /// The key is a plan entry and changed, at this slot of the changes. A slot rather than
        /// a ``SubstanceChange``: returning one would retain the changes, which the reaction
        /// asking already holds.
        case changed(slot: Int)
        /// The key is a plan entry and did not change.
        case unchanged
        /// The key is not a plan entry (a sub-key of a dictionary, the Codable path, an unknown
        /// key): look it up by string.
        case notAnEntry
    }

    /// Finds `key` among the plan's entries, then among the entries this commit changed, in one
    /// call: every reaction's `on(key)` asks, and most ask about a key that did not change.
    ///
    /// The entry comes from the plan's key table by the key's bits, else (a key longer than 15
    /// bytes) by hashing it. An entry whose bit is not in the changed entries' mask did not change,
    /// which is known without reading the list.
    @usableFromInline
    package final func lookUp(_ key: String) -> EntryLookup {
        // The common cases call nothing, so the function saves no registers: a key the table
        // knows by its bits, unchanged, or changed and among the first four changed entries.
        // Everything else is answered out of line.
        guard let plan, let entry = plan.keyTable.entry(forKey: key) else { return lookUpByHash(key) }
        return lookUp(changedEntry: entry)
    }

    /// Whether plan entry `entry` changed, and at which slot: by the mask first, then among the
    /// first changed entries, the rest out of line.
    @inlinable @inline(__always)
    final func lookUp(changedEntry entry: Int32) -> EntryLookup {
        guard entries.mayContain(entry) else { return .unchanged }
        guard let slot = entries.inlineIndex(of: entry) else { return lookUpAmongAll(entry) }
        return .changed(slot: slot)
    }

    /// ``lookUp(_:)`` for a key the key table does not know by its bits (longer than 15 bytes, or
    /// not a key of the state): found by hashing it.
    @inline(never)
    private final func lookUpByHash(_ key: String) -> EntryLookup {
        guard let plan, let entry = plan.keyIndex[key].map({ Int32($0) }) else { return .notAnEntry }
        return entries.mayContain(entry) ? lookUpAmongAll(entry) : .unchanged
    }

    /// The slot of plan entry `entry` among these changes, if it changed and these are changes of
    /// a state whose plan is `plan` (a declared reaction's key, resolved once when it was
    /// registered: see `KeyedSubstance.planEntry(of:)`); `.notAnEntry` for changes of another
    /// state type, which the caller then looks up by key.
    // Inlined where a reactor runs its declared reactions (scenario S3d): a call per reaction
    // cost more than the comparisons.
    @inlinable @inline(__always)
    package final func lookUp(entry: Int32, of plan: ObjectIdentifier) -> EntryLookup {
        guard let own = self.plan, ObjectIdentifier(own) == plan else { return .notAnEntry }
        return lookUp(changedEntry: entry)
    }

    /// Whether these changes touch one of `keys` (or a key below one) as a bound observer's interest
    /// in them would (see `Substance.setInterest(of:keys:)`): true on the Codable path, which does
    /// not tell changes apart by entry.
    package final func touchesAny(of keys: [String]) -> Bool {
        guard let plan, let interest = plan.interest(in: keys) else { return true }
        return interest.touches(entries)
    }

    /// ``lookUp(_:)`` for an entry whose bit is in the mask: searched among all the changed entries.
    @usableFromInline @inline(never)
    final func lookUpAmongAll(_ entry: Int32) -> EntryLookup {
        entries.firstIndex(of: entry).map { .changed(slot: $0) } ?? .unchanged
    }

    /// The keys found by flattening, which have no plan entry (after the entries, in order).
    var flattenedKeys: [String] { [] }

    /// The values before and after at `slot` (from 0 to ``count``, in the order of ``all``), for a
    /// tool that records changes (a journal, a diff printer; on the bus): a property's read as its
    /// type, without a cast, a flattened key's as it was flattened.
    public func changedValues(at slot: Int) -> (old: ChangedValue, new: ChangedValue) { (.other(nil), .other(nil)) }

    /// The key and values at `slot` (as in ``changedValues(at:)``) as their bits, when the key is a
    /// property whose value is its bits (of a standard integer type, `Double`, `Float` or `Bool`)
    /// and the state has no secret keys (whose values nobody keeps): what a tool that records
    /// changes (a journal) keeps, to read them later, with ``ChangedBits/values``, as
    /// ``changedValues(at:)`` reads them now. Nil otherwise. On the bus, as the changes are
    /// delivered.
    public func changedBits(at slot: Int) -> ChangedBits? { nil }

    /// The states before and after the commit, for a tool that records them (a journal's starting
    /// states and a task's new states); nil for changes without a state type.
    public var states: (old: any State, new: any State)? { nil }

    /// The secret keys of the state type (none without one).
    public var secrets: SecretKeys { .none }

    func oldValue(at slot: Int) -> Any? { nil }
    func newValue(at slot: Int) -> Any? { nil }
}

/// The changes of a commit of a `Substance<S>`, with both snapshots for typed access.
///
/// Filled on the bus by the reducer, then only read. Once delivered, an object that never left the
/// bus and that nobody else holds is refilled by the next commit of its substance rather than
/// freed (see `Substance.recycle`).
///
/// The new state of a refilled object is not copied: it is read where the substance keeps it, in
/// its committed slot, which holds it until the substance's next commit. Before anything else can
/// read the object then, it is copied here ("materialized"): when the object leaves the bus
/// (``SubstanceChanges/markEscaped()``), when the substance does not keep it for a refill
/// (`Substance.recycle`), and at the next commit when someone still holds it
/// (`Substance.settleSpareChanges()`). So an object that reads the slot is held only by its
/// substance and by readers on the bus within the delivery (reactions are not `Sendable`);
/// reading it elsewhere traps in debug builds. What it saves: one copy of the state per commit,
/// with a retain and a release per reference it holds (scenarios S2, S3d: five strings).
final class StateChanges<S: State>: SubstanceChanges, @unchecked Sendable {
    @exclusivity(unchecked) private(set) var old: S
    /// The new state when it was copied here (``newInSlot`` is nil); while it is read in the
    /// substance's slot, a state made with `S()`, so that the object keeps no stale state alive.
    /// Not an optional: an optional of a generic type has its metadata looked up at run time on
    /// every use (scenario S1s).
    @exclusivity(unchecked) private var ownNew: S
    /// The substance's committed slot, holding the new state, while it is read there.
    @exclusivity(unchecked) private var newInSlot: StateSlot?
    /// The slots of a substance that went while this object read its new state there (see
    /// ``adoptSlotsIfReadingThem(_:)``), freed with this object.
    @exclusivity(unchecked) private var adoptedSlots: UnsafeStateSlots?
    // The change list is filled only by the reducer on the bus before the object is handed out,
    // so the runtime exclusivity checks are not needed.
    /// Changed keys found by flattening (Codable path and expandable properties).
    @exclusivity(unchecked) var flat: [(key: String, old: FlatValue?, new: FlatValue?)] = []

    required init(
        reference: SubstanceReference, old: S, new: S, plan: ReductionPlan, entries: consuming PlanEntrySet,
        flat: consuming [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        self.old = old
        self.ownNew = new
        self.flat = flat
        super.init(reference: reference, plan: plan)
        self.entries = entries
    }

    /// The state after the commit (on the bus, or once the object has left it).
    var new: S {
        if let newInSlot {
            assertReadableInSlot()
            return newInSlot.value(S.self)
        }
        return ownNew
    }

    /// Calls `body` with the bytes of the new state, where it lies.
    private func withNewMemory<Result>(_ body: (StateMemory) -> Result) -> Result {
        if let newInSlot {
            assertReadableInSlot()
            return body(newInSlot.memory(S.self))
        }
        return StateMemory.withMemory(of: ownNew, body)
    }

    /// A new state read in the substance's slot is read on its bus (checked in debug builds):
    /// the object has not left it. Once the substance is gone and this object holds its slots,
    /// nobody writes them any more.
    @inline(__always)
    private func assertReadableInSlot() {
        #if DEBUG
            if adoptedSlots == nil {
                busOfSubstance.assertIsCurrent("changes of \(S.self) read off the bus before they were marked escaped")
            }
        #endif
    }

    /// Takes over its substance's slots, which its substance is going without, when it reads its
    /// new state in one of them: it frees them when it goes, and its readers (on the bus) keep
    /// reading what nobody writes any more. Nothing is written that a reader reads.
    override func adoptSlotsIfReadingThem(_ slots: UnsafeStateSlots) -> Bool {
        guard newInSlot != nil else { return false }
        adoptedSlots = slots
        return true
    }

    deinit {
        adoptedSlots?.free(S.self)
    }

    /// Copies the new state out of the substance's slot, if it is read there: before the object
    /// leaves the bus, or the slot is reused (on the bus).
    override func materializeNew() {
        guard let newInSlot else { return }
        ownNew = newInSlot.value(S.self)
        self.newInSlot = nil
    }

    /// Refills a recycled object (on the bus, while nobody else holds it) with a new reduction and
    /// the states in the two slots. The new state is not copied: it is read in the substance's
    /// committed slot (see the type's notes). The old one is no longer needed in its slot: a
    /// state with references is swapped in (no retains and releases; the slot is left with this
    /// object's stale state), plain data is copied, which is cheaper than a swap.
    @inline(__always)
    func refill(
        old: StateSlot, new: StateSlot, entries: consuming PlanEntrySet,
        flat: consuming [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        if _isPOD(S.self) {
            self.old = old.value(S.self)
        } else {
            old.swapValue(with: &self.old)
        }
        // The new state stays in the substance's committed slot (see the type's notes); a copy
        // this object owned is let go.
        if newInSlot == nil { ownNew = S() }
        newInSlot = new
        self.entries.replace(with: entries)
        // Most commits find no flattened changes: an empty list stays as it is.
        if !flat.isEmpty || !self.flat.isEmpty { self.flat = flat }
    }

    /// The plan, which changes of a `Substance<S>` always have.
    private var layout: ReductionPlan { uncheckedUnwrap(plan) }

    override var count: Int { entries.count + flat.count }

    override var flattenedKeys: [String] { flat.isEmpty ? [] : flat.map(\.key) }

    override func key(at slot: Int) -> String {
        slot < entries.count ? layout.entries[Int(entries[slot])].key : flat[slot - entries.count].key
    }

    override func slot(of key: String) -> Int? {
        let entries = self.entries
        let planEntries = layout.entries
        for index in entries.indices where planEntries[Int(entries[index])].key == key {
            return index
        }
        for index in flat.indices where flat[index].key == key {
            return entries.count + index
        }
        return nil
    }

    override func changedValues(at slot: Int) -> (old: ChangedValue, new: ChangedValue) {
        guard slot < entries.count else {
            let flat = flat[slot - entries.count]
            return (flat.old.map { .flat($0) } ?? .absent, flat.new.map { .flat($0) } ?? .absent)
        }
        // The entry's offset and reader only, not the entry: a copy of it retains its key and
        // each of its traits' closures (scenario S1j).
        let index = Int(entries[slot])
        let offset = layout.entries[index].offset
        let changedValue = layout.entries[index].traits.changedValue
        let old = StateMemory.withMemory(of: self.old) { changedValue($0.advanced(by: offset)) }
        let new = withNewMemory { changedValue($0.advanced(by: offset)) }
        return (old, new)
    }

    override func changedBits(at slot: Int) -> ChangedBits? {
        guard slot >= 0, slot < entries.count else { return nil }
        let index = Int(entries[slot])
        let size = layout.entries[index].traits.bitsSize
        guard size > 0, layout.secrets.isEmpty else { return nil }
        let offset = layout.entries[index].offset
        let old = StateMemory.withMemory(of: self.old) { $0.advanced(by: offset).bits(size: size) }
        let new = withNewMemory { $0.advanced(by: offset).bits(size: size) }
        return ChangedBits(plan: layout, entry: index, old: old, new: new)
    }

    override var states: (old: any State, new: any State)? { (old, new) }

    override var secrets: SecretKeys { layout.secrets }

    override func oldValue(at slot: Int) -> Any? {
        value(at: slot, flat: flat[safe: slot - entries.count]?.old, state: old) {
            StateMemory.withMemory(of: old, $0)
        }
    }
    override func newValue(at slot: Int) -> Any? {
        value(at: slot, flat: flat[safe: slot - entries.count]?.new, state: new, in: withNewMemory)
    }

    /// The value at `slot`: a property's read in the state `withState` lends, where it lies; a
    /// flattened key's found as the state holds it (a `Date`, not the `Double` it flattened to:
    /// `TypedValueFinder`) in what was flattened, the property it is below on the layout path or
    /// the whole `state` on the Codable path; as it was flattened where the walk cannot say.
    private func value(
        at slot: Int, flat: FlatValue??, state: @autoclosure () -> S,
        in withState: ((StateMemory) -> Any?) -> Any?
    ) -> Any? {
        if slot < entries.count {
            let entry = layout.entries[Int(entries[slot])]
            return withState { unwrappingOptionals(entry.traits.read($0.advanced(by: entry.offset))) }
        }
        let key = self.flat[slot - entries.count].key
        let lookup: TypedValueFinder.Lookup
        if layout.usesCodablePath {
            lookup = TypedValueFinder.value(atKey: key, in: state())
        } else if let index = layout.entry(holding: key) {
            // Below a property (a dictionary's entry, a key below an optional struct): found in
            // the property's value, which is what was flattened.
            let entry = layout.entries[index]
            let property = withState { entry.traits.read($0.advanced(by: entry.offset)) }
            let below = DottedKey.components(of: key).dropFirst(DottedKey.components(of: entry.key).count)
            lookup = (property as? any Encodable).map { TypedValueFinder.find($0, below) } ?? .unknown
        } else {
            lookup = .unknown
        }
        if case .found(let value) = lookup { return value.flatMap(unwrappingOptionals) }
        return flat??.anyValue
    }
}

extension SubstanceChanges {
    /// The state before the commit, when these are changes of a `Substance<S>`: what a tool that
    /// goes back to it (an undo history) keeps.
    package func oldState<S: State>(as type: S.Type) -> S? {
        (self as? StateChanges<S>)?.old
    }
}

// The two places that know a changes object's state type without a check: every changes object
// a `Substance<S>` makes or recycles is a `StateChanges<S>`, of the class its plan names
// (`ReductionPlan.changesClass`). Written here, beside the class, so that the reducer and the
// main-actor observation rely on the invariant without casting themselves. Unchecked: `as!`
// looks the generic class's metadata up on every commit (scenarios S1 and S1o;
// docs/performance.md, "What each unsafe primitive saves"). Debug builds trap on another class.
extension SubstanceChanges {
    /// These changes as the `StateChanges<S>` they are: changes of a `Substance<S>`, consumed so
    /// that no copy keeps the object retained beside the result.
    @inline(__always)
    consuming func ofState<S: State>(_ type: S.Type) -> StateChanges<S> {
        uncheckedCast(self, to: StateChanges<S>.self)
    }
}

extension ReductionPlan {
    /// The class of the changes of a commit of `S`, whose plan this is.
    @inline(__always)
    func changesClass<S: State>(of type: S.Type) -> StateChanges<S>.Type {
        uncheckedCast(changesClass, to: StateChanges<S>.self)
    }
}
