import Foundation

/// The changes of a commit of a `Substance<S>`, with both snapshots for typed access.
///
/// Filled on the bus by the reducer, then only read. Once delivered, an object that never left the
/// bus and that nobody else holds is refilled by the next commit of its substance rather than
/// freed (see `Substance.recycle`).
final class StateChanges<S: State>: SubstanceChanges, @unchecked Sendable {
    @exclusivity(unchecked) private(set) var old: S
    @exclusivity(unchecked) private(set) var new: S
    // The change list is filled only by the reducer on the bus before the object is handed out,
    // so the runtime exclusivity checks are not needed.
    /// Changed keys found by flattening (Codable path and expandable properties).
    @exclusivity(unchecked) var flat: [(key: String, old: FlatValue?, new: FlatValue?)] = []

    required init(
        reference: SubstanceReference, old: S, new: S, plan: ReductionPlan, entries: consuming PlanEntrySet,
        flat: consuming [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        self.old = old
        self.new = new
        self.flat = flat
        super.init(reference: reference, plan: plan)
        self.entries = entries
    }

    /// Refills a recycled object (on the bus, while nobody else holds it) with a new reduction and
    /// the states in the two slots. The new state is copied: the substance keeps it as its
    /// committed state. The old one is no longer needed there: a state with references is swapped
    /// in (no retains and releases; the slot is left with this object's stale state), plain data
    /// is copied, which is cheaper than a swap.
    @inline(__always)
    func refill(
        old: UnsafeMutablePointer<S>, new: UnsafePointer<S>, entries: consuming PlanEntrySet,
        flat: consuming [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        if _isPOD(S.self) {
            self.old = old.pointee
        } else {
            swap(&self.old, &old.pointee)
        }
        self.new = new.pointee
        self.entries.replace(with: entries)
        // Most commits find no flattened changes: an empty list stays as it is.
        if !flat.isEmpty || !self.flat.isEmpty { self.flat = flat }
    }

    /// The plan, which changes of a `Substance<S>` always have.
    private var layout: ReductionPlan { plan.unsafelyUnwrapped }

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
            return (.other(flat.old?.anyValue), .other(flat.new?.anyValue))
        }
        let entry = layout.entries[Int(entries[slot])]
        let old = withUnsafePointer(to: self.old) { entry.traits.changedValue(UnsafeRawPointer($0) + entry.offset) }
        let new = withUnsafePointer(to: self.new) { entry.traits.changedValue(UnsafeRawPointer($0) + entry.offset) }
        return (old, new)
    }

    override var states: (old: any State, new: any State)? { (old, new) }

    override var secrets: SecretKeys { layout.secrets }

    override func oldValue(at slot: Int) -> Any? {
        value(at: slot, in: old, flat: flat[safe: slot - entries.count]?.old)
    }
    override func newValue(at slot: Int) -> Any? {
        value(at: slot, in: new, flat: flat[safe: slot - entries.count]?.new)
    }

    private func value(at slot: Int, in state: S, flat: FlatValue??) -> Any? {
        if slot < entries.count {
            let entry = layout.entries[Int(entries[slot])]
            var state = state
            return withUnsafeBytes(of: &state) { unwrap(entry.traits.read($0.baseAddress! + entry.offset)) }
        }
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
