/// A key a commit changed, with its values before and after kept as their bits: what a tool that
/// records changes (a journal) keeps of a number or a Boolean, to read as a ``ChangedValue`` only
/// when it is asked for, exactly as ``SubstanceChanges/changedValues(at:)`` read it at the commit
/// (the value of such a type is its bits, and nothing else).
///
/// Made by ``SubstanceChanges/changedBits(at:)``. It holds no value of the state, only the bits
/// and the state type's plan, so it may be kept as long as you like, and read on any thread.
public struct ChangedBits: Sendable {
    /// The state type's plan, which names the key and reads the bits.
    @usableFromInline let plan: ReductionPlan
    /// The key's entry in `plan`.
    @usableFromInline let entry: Int
    private let old: UInt64
    private let new: UInt64

    init(plan: ReductionPlan, entry: Int, old: UInt64, new: UInt64) {
        self.plan = plan
        self.entry = entry
        self.old = old
        self.new = new
    }

    /// The changed key.
    public var key: String { plan.entries[entry].key }

    /// The values before and after, as ``SubstanceChanges/changedValues(at:)`` read them.
    public var values: (old: ChangedValue, new: ChangedValue) {
        let read = plan.entries[entry].traits.changedValue
        return (StateMemory.withBits(old, read), StateMemory.withBits(new, read))
    }

    /// Whether `other` changed the same key of the same state type (told without comparing keys).
    /// Inlinable: a journal asks at every mix (scenario S1j).
    @inlinable public func isSameKey(as other: ChangedBits?) -> Bool {
        plan === other?.plan && entry == other?.entry
    }
}
