/// What a reaction's handler asked of one commit's changes while they recorded it: the plan
/// entries of the keys it asked for with `reaction.on(key)`, and whether it read anything else
/// (the changes themselves, a key that is no entry, the lock). A reactor learns from it which
/// commits can concern its handler (see `Reactor.learnsKeys`).
///
/// The entries are kept as bits: one per entry below 64 (the first 64 properties of the state,
/// nested ones included). Asking for an entry beyond counts as reading something else, so that
/// such a handler is called for every commit rather than compared inexactly.
package struct KeyAsks: Equatable {
    /// One bit per entry asked for.
    private(set) var mask: UInt64 = 0
    /// Whether the handler read something other than keys that are plan entries below 64.
    private(set) var other = false

    package init() {}

    /// Whether the asks say which commits can concern the handler: keys only, at least one.
    package var isLearnable: Bool { !other && mask != 0 }

    /// Records that `entry` was asked for.
    @inline(__always)
    mutating func ask(_ entry: Int32) {
        if entry < 64 { mask |= 1 &<< UInt64(entry) } else { other = true }
    }

    /// Records that something other than a plan entry's key was read.
    mutating func askOther() {
        other = true
    }

    /// Forgets what was asked.
    mutating func reset() {
        mask = 0
        other = false
    }

    /// How asks compare with others.
    package enum Comparison {
        /// The same keys, and nothing else.
        case same
        /// Other keys, or the same keys after something else was read.
        case different
        /// Not learnable (see ``isLearnable``).
        case notLearnable
    }

    /// How these asks compare with `known`.
    @inline(__always)
    func compared(with known: KeyAsks) -> Comparison {
        guard isLearnable else { return .notLearnable }
        return mask == known.mask && !known.other ? .same : .different
    }

    /// The entries asked for, as a commit's changed entries are kept.
    var entries: PlanEntrySet {
        var entries = PlanEntrySet()
        var bits = mask
        while bits != 0 {
            entries.append(Int32(bits.trailingZeroBitCount))
            bits &= bits &- 1
        }
        return entries
    }
}
