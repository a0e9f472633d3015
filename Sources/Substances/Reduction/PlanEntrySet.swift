/// A short list of reduction-plan entries: the entries a commit changed, in the order found, or
/// the entries a reactor declared it reacts to. The first four are inline, the rest in an array:
/// most commits change a few keys, and an array per commit was an allocation, a growth and a free
/// on every dispatch.
@usableFromInline
struct PlanEntrySet: RandomAccessCollection, Sendable {
    @usableFromInline var inline: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
    /// How many of `inline` hold entries (the low byte), and whether the mask names the entries
    /// exactly (``exactBit``): one word, so that the list stays five words of plain integers and a
    /// reference (with a sixth it was copied through `memcpy`; with a `UInt8` and a `Bool` it was
    /// destroyed through its value witness).
    @usableFromInline var countAndExactness: Int = PlanEntrySet.exactBit
    @inlinable @inline(__always) static var exactBit: Int { 0x100 }

    @inlinable var inlineCount: Int {
        @inline(__always) get { countAndExactness & 0xFF }
    }

    /// Whether every entry is below 64, so that the mask names the entries exactly.
    var isExactInMask: Bool {
        @inline(__always) get { countAndExactness & PlanEntrySet.exactBit != 0 }
    }
    /// Nil until a fifth entry: an empty array would still be released whenever a list is
    /// replaced (a recycled commit's list is, on every dispatch).
    private var overflow: [Int32]? = nil
    /// One bit per entry modulo 64: two lists whose masks share no bit share no entry, which a
    /// reactor filtering by key checks without reading the lists.
    @usableFromInline private(set) var mask: UInt64 = 0

    /// Whether `entry` may be in the list: false when its bit is not in the mask.
    @inlinable @inline(__always)
    func mayContain(_ entry: Int32) -> Bool { mask & PlanEntrySet.bit(of: entry) != 0 }

    @inlinable @inline(__always)
    static func bit(of entry: Int32) -> UInt64 { 1 &<< UInt64(entry & 63) }

    @usableFromInline var startIndex: Int { 0 }
    @usableFromInline var endIndex: Int { inlineCount + (overflow?.count ?? 0) }

    @usableFromInline subscript(position: Int) -> Int32 {
        switch position {
        case 0: inline.0
        case 1: inline.1
        case 2: inline.2
        case 3: inline.3
        default: overflow![position - 4]
        }
    }

    /// The index of `entry` among the first four entries (kept inline), if it is there: compared
    /// directly rather than through the generic collection algorithm.
    @inlinable @inline(__always)
    func inlineIndex(of entry: Int32) -> Int? {
        if inlineCount > 0, inline.0 == entry { return 0 }
        if inlineCount > 1, inline.1 == entry { return 1 }
        if inlineCount > 2, inline.2 == entry { return 2 }
        if inlineCount > 3, inline.3 == entry { return 3 }
        return nil
    }

    /// The position of `entry`.
    @inline(__always)
    func firstIndex(of entry: Int32) -> Int? {
        inlineIndex(of: entry) ?? overflow?.firstIndex(of: entry).map { $0 + 4 }
    }

    func contains(_ entry: Int32) -> Bool { firstIndex(of: entry) != nil }

    /// Whether this list and `changed` share an entry: by their masks, read as plain words, and
    /// entry by entry only when a shared bit may stand for different entries (beyond the 64th).
    @inline(__always)
    func touches(_ changed: PlanEntrySet) -> Bool {
        if mask & changed.mask == 0 { return false }
        if isExactInMask && changed.isExactInMask { return true }
        return sharesAnEntry(with: changed)
    }

    /// Whether any entry of `other` is in this list, looked up one by one: for lists whose masks
    /// share a bit that may stand for different entries (beyond the 64th); the masks answer the
    /// other cases (see ``touches(_:)``).
    @inline(never)
    func sharesAnEntry(with other: PlanEntrySet) -> Bool {
        var index = 0
        let count = other.entryCount
        while index < count {
            if contains(other[index]) { return true }
            index += 1
        }
        return false
    }

    /// How many entries the list holds (without the collection's generic `count`).
    @inline(__always)
    var entryCount: Int { inlineCount + (overflow?.count ?? 0) }

    /// Takes `other`'s entries, field by field: assigning the whole list would go through its type's
    /// value witness (a recycled commit does it on every dispatch).
    @inline(__always)
    mutating func replace(with other: consuming PlanEntrySet) {
        inline = other.inline
        countAndExactness = other.countAndExactness
        mask = other.mask
        if overflow != nil || other.overflow != nil { overflow = other.overflow }
    }

    @inline(__always)
    mutating func append(_ entry: Int32) {
        mask |= PlanEntrySet.bit(of: entry)
        if entry >= 64 { countAndExactness &= ~PlanEntrySet.exactBit }
        switch inlineCount {
        case 0: inline.0 = entry
        case 1: inline.1 = entry
        case 2: inline.2 = entry
        case 3: inline.3 = entry
        default:
            if overflow == nil { overflow = [entry] } else { overflow?.append(entry) }
            return
        }
        countAndExactness += 1
    }
}
