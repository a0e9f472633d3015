/// The storage of ``BigDictionary``: a hash array mapped trie whose nodes and entries are never
/// changed once made. A write makes a new entry and copies the nodes on the path to it (a few,
/// each of at most 16 slots); every other node and entry is shared with the dictionary it was
/// copied from. Two dictionaries that share a node hold the same entries below it, and two that
/// share an entry hold the same key and value: comparing them skips both (``HashTrie/differences``).
///
/// Nodes and entries are not generic: the reduction compares states through code that is not
/// specialized for the state's types, and a walk over generic nodes there paid a metadata lookup
/// and a value-witness copy per slot. Here the walk compares references, and only the entries
/// found different are opened as `Key` and `Value`.
///
/// Each level takes four bits of the key's hash (the lowest first): a digit's slot holds an entry
/// or a child node. Below the last level (all 64 bits used), keys with the same hash share a
/// collision node, a plain list of entries.
final class HashTrieNode: Sendable {
    /// The hash digits whose slot holds an entry.
    let entryMap: UInt32
    /// The hash digits whose slot holds a child node.
    let childMap: UInt32
    /// The entries, in the order of their digits; a collision node's, in any order.
    let entries: [HashTrieEntry]
    /// The child nodes, in the order of their digits.
    let children: [HashTrieNode]

    init(entryMap: UInt32, childMap: UInt32, entries: [HashTrieEntry], children: [HashTrieNode]) {
        assert(
            entryMap & childMap == 0 && entryMap.nonzeroBitCount == entries.count
                && childMap.nonzeroBitCount == children.count || entryMap | childMap == 0 && children.isEmpty,
            "a trie node's maps disagree with its slots")
        self.entryMap = entryMap
        self.childMap = childMap
        self.entries = entries
        self.children = children
    }

    static let empty = HashTrieNode(entryMap: 0, childMap: 0, entries: [], children: [])

    /// A collision node holds entries whose keys have the same full hash, past the last level.
    var isCollision: Bool { entryMap | childMap == 0 && !entries.isEmpty }

    /// Whether this node can stand as an entry of its parent: one entry and nothing else.
    var singleEntry: HashTrieEntry? { entries.count == 1 && children.isEmpty ? entries[0] : nil }
}

/// One key and its value, with the key's hash.
final class HashTrieEntry: Sendable {
    let hash: UInt64
    let key: any Hashable & Sendable
    let value: any Sendable

    init(hash: UInt64, key: any Hashable & Sendable, value: any Sendable) {
        self.hash = hash
        self.key = key
        self.value = value
    }

    /// Whether this entry's key is `key` (whose hash is `hash`).
    @inline(__always)
    func holds<Key: Hashable>(_ key: Key, hash: UInt64) -> Bool {
        self.hash == hash && (self.key as? Key) == key
    }
}

/// Operations on ``HashTrieNode`` trees.
enum HashTrie {
    /// The bits of the hash each level takes: 16 slots to a node. A write copies the nodes on its
    /// path, and each copy retains every entry and child the node shares; in a big trie those
    /// reference counts are cache misses, which made a one-entry edit slower as the trie grew
    /// for the same instructions. Fewer slots touch fewer of them, for a deeper trie
    /// (docs/big-collections.md).
    static let digitBits = 4
    static let digitMask: UInt64 = 1 &<< UInt64(digitBits) &- 1
    /// The shift of the last level; past it, keys with equal hashes go to a collision node.
    static let lastShift = 64 - digitBits

    @inline(__always)
    static func hash<Key: Hashable>(_ key: Key) -> UInt64 { UInt64(UInt(bitPattern: key.hashValue)) }

    @inline(__always)
    static func bit(_ hash: UInt64, _ shift: Int) -> UInt32 { 1 &<< UInt32((hash &>> UInt64(shift)) & digitMask) }

    @inline(__always)
    static func index(_ map: UInt32, _ bit: UInt32) -> Int { (map & (bit &- 1)).nonzeroBitCount }

    /// The entry under `key`, or nil.
    static func find<Key: Hashable>(_ root: HashTrieNode, _ key: Key, _ hash: UInt64) -> HashTrieEntry? {
        var node = root
        var shift = 0
        while true {
            if node.isCollision { return node.entries.first { $0.holds(key, hash: hash) } }
            let bit = bit(hash, shift)
            if node.entryMap & bit != 0 {
                let entry = node.entries[index(node.entryMap, bit)]
                return entry.holds(key, hash: hash) ? entry : nil
            }
            guard node.childMap & bit != 0 else { return nil }
            node = node.children[index(node.childMap, bit)]
            shift += digitBits
        }
    }

    /// `node` with `value` under `key` (whose hash is `hash`): in place of the entry of an equal
    /// key, which keeps its key as stored (as `Dictionary` does: a key equal to it but spelled
    /// with other bytes, `"é"` composed or not, does not replace it), or added; and the entry it
    /// replaced.
    static func inserting<Key: Hashable & Sendable>(
        _ node: HashTrieNode, key: Key, hash: UInt64, value: any Sendable, _ shift: Int
    ) -> (node: HashTrieNode, old: HashTrieEntry?) {
        if node.isCollision {
            var entries = node.entries
            if let index = entries.firstIndex(where: { $0.holds(key, hash: hash) }) {
                let old = entries[index]
                entries[index] = HashTrieEntry(hash: hash, key: old.key, value: value)
                return (HashTrieNode(entryMap: 0, childMap: 0, entries: entries, children: []), old)
            }
            entries.append(HashTrieEntry(hash: hash, key: key, value: value))
            return (HashTrieNode(entryMap: 0, childMap: 0, entries: entries, children: []), nil)
        }
        let bit = bit(hash, shift)
        if node.entryMap & bit != 0 {
            let index = index(node.entryMap, bit)
            let existing = node.entries[index]
            var entries = node.entries
            if existing.holds(key, hash: hash) {
                entries[index] = HashTrieEntry(hash: hash, key: existing.key, value: value)
                return (
                    HashTrieNode(
                        entryMap: node.entryMap, childMap: node.childMap, entries: entries, children: node.children),
                    existing
                )
            }
            // Two keys in one slot: a node of their own, one level down.
            entries.remove(at: index)
            var children = node.children
            let entry = HashTrieEntry(hash: hash, key: key, value: value)
            children.insert(pair(existing, entry, shift + digitBits), at: self.index(node.childMap, bit))
            return (
                HashTrieNode(
                    entryMap: node.entryMap & ~bit, childMap: node.childMap | bit, entries: entries, children: children),
                nil
            )
        }
        if node.childMap & bit != 0 {
            let index = index(node.childMap, bit)
            let (child, old) = inserting(node.children[index], key: key, hash: hash, value: value, shift + digitBits)
            var children = node.children
            children[index] = child
            return (
                HashTrieNode(
                    entryMap: node.entryMap, childMap: node.childMap, entries: node.entries, children: children),
                old
            )
        }
        var entries = node.entries
        entries.insert(HashTrieEntry(hash: hash, key: key, value: value), at: index(node.entryMap, bit))
        return (
            HashTrieNode(
                entryMap: node.entryMap | bit, childMap: node.childMap, entries: entries, children: node.children),
            nil
        )
    }

    /// A node holding two entries whose keys differ, at `shift`.
    private static func pair(_ first: HashTrieEntry, _ second: HashTrieEntry, _ shift: Int) -> HashTrieNode {
        if shift > lastShift {
            return HashTrieNode(entryMap: 0, childMap: 0, entries: [first, second], children: [])
        }
        let bit1 = bit(first.hash, shift)
        let bit2 = bit(second.hash, shift)
        if bit1 == bit2 {
            return HashTrieNode(
                entryMap: 0, childMap: bit1, entries: [], children: [pair(first, second, shift + digitBits)])
        }
        return HashTrieNode(
            entryMap: bit1 | bit2, childMap: 0, entries: bit1 < bit2 ? [first, second] : [second, first], children: [])
    }

    /// `node` without `key`, and the entry removed; nil when the key is not there.
    static func removing<Key: Hashable>(
        _ node: HashTrieNode, _ key: Key, _ hash: UInt64, _ shift: Int
    ) -> (node: HashTrieNode, old: HashTrieEntry)? {
        if node.isCollision {
            guard let index = node.entries.firstIndex(where: { $0.holds(key, hash: hash) }) else { return nil }
            var entries = node.entries
            let old = entries.remove(at: index)
            return (HashTrieNode(entryMap: 0, childMap: 0, entries: entries, children: []), old)
        }
        let bit = bit(hash, shift)
        if node.entryMap & bit != 0 {
            let index = index(node.entryMap, bit)
            guard node.entries[index].holds(key, hash: hash) else { return nil }
            var entries = node.entries
            let old = entries.remove(at: index)
            return (
                HashTrieNode(
                    entryMap: node.entryMap & ~bit, childMap: node.childMap, entries: entries, children: node.children),
                old
            )
        }
        guard node.childMap & bit != 0 else { return nil }
        let childIndex = index(node.childMap, bit)
        guard let (child, old) = removing(node.children[childIndex], key, hash, shift + digitBits) else { return nil }
        var children = node.children
        // A child left with one entry becomes that entry: the trie stays as shallow as its keys need.
        if let remaining = child.singleEntry {
            children.remove(at: childIndex)
            var entries = node.entries
            entries.insert(remaining, at: index(node.entryMap, bit))
            return (
                HashTrieNode(
                    entryMap: node.entryMap | bit, childMap: node.childMap & ~bit, entries: entries, children: children),
                old
            )
        }
        children[childIndex] = child
        return (
            HashTrieNode(entryMap: node.entryMap, childMap: node.childMap, entries: node.entries, children: children),
            old
        )
    }

    /// A trie of `entries`, whose keys are distinct, built level by level: the entries sorted once
    /// by their hash digits (lowest digit first), then each run of equal digits made a slot.
    static func build(_ entries: [HashTrieEntry]) -> HashTrieNode {
        let sorted = entries.map { (order: digitOrder($0.hash), entry: $0) }.sorted { $0.order < $1.order }.map(\.entry)
        return build(sorted[...], shift: 0)
    }

    private static func build(_ items: ArraySlice<HashTrieEntry>, shift: Int) -> HashTrieNode {
        if shift > lastShift {
            return HashTrieNode(entryMap: 0, childMap: 0, entries: Array(items), children: [])
        }
        var entryMap: UInt32 = 0
        var childMap: UInt32 = 0
        var entries: [HashTrieEntry] = []
        var children: [HashTrieNode] = []
        var start = items.startIndex
        while start < items.endIndex {
            let bit = bit(items[start].hash, shift)
            var end = start + 1
            while end < items.endIndex, self.bit(items[end].hash, shift) == bit { end += 1 }
            if end - start == 1 {
                entryMap |= bit
                entries.append(items[start])
            } else {
                childMap |= bit
                children.append(build(items[start..<end], shift: shift + digitBits))
            }
            start = end
        }
        return HashTrieNode(entryMap: entryMap, childMap: childMap, entries: entries, children: children)
    }

    /// The hash with its digits in reverse order, the lowest first: sorting by it puts the
    /// keys of every slot of every level together, in the order of their digits.
    private static func digitOrder(_ hash: UInt64) -> UInt64 {
        var order: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: digitBits) {
            order = order &<< UInt64(digitBits) | (hash &>> UInt64(shift)) & digitMask
        }
        return order
    }

    /// `node` with each entry below it replaced by `transform`'s, in the same slots: for a
    /// transform that keeps each entry's key and hash.
    static func mapEntries(
        _ node: HashTrieNode, _ transform: (HashTrieEntry) throws -> HashTrieEntry
    ) rethrows -> HashTrieNode {
        HashTrieNode(
            entryMap: node.entryMap, childMap: node.childMap, entries: try node.entries.map(transform),
            children: try node.children.map { try mapEntries($0, transform) })
    }

    /// Calls `body` with every entry below `node`: a node's entries, then its children's.
    static func forEach(_ node: HashTrieNode, _ body: (HashTrieEntry) throws -> Void) rethrows {
        for entry in node.entries { try body(entry) }
        for child in node.children { try forEach(child, body) }
    }

    /// Adds to `found` every entry of `old` or `new` in slots the two tries do not share: an entry
    /// left out is on both sides, the same entry (a shared node holds the same entries; a shared
    /// entry, the same key and value). A key whose value changed has its old entry and its new
    /// one added. Costs the nodes on the paths to what changed, compared by reference: one edit of
    /// a million entries visits about five.
    static func differences(_ old: HashTrieNode, _ new: HashTrieNode, into found: inout [HashTrieEntry]) {
        if old === new { return }
        if old.isCollision || new.isCollision {
            forEach(old) { found.append($0) }
            forEach(new) { found.append($0) }
            return
        }
        var pending = old.entryMap | new.entryMap | old.childMap | new.childMap
        while pending != 0 {
            let bit = pending & (0 &- pending)
            pending &= ~bit
            if old.childMap & new.childMap & bit != 0 {
                differences(
                    old.children[index(old.childMap, bit)], new.children[index(new.childMap, bit)], into: &found)
                continue
            }
            let oldEntry = old.entryMap & bit != 0 ? old.entries[index(old.entryMap, bit)] : nil
            let newEntry = new.entryMap & bit != 0 ? new.entries[index(new.entryMap, bit)] : nil
            if let oldEntry, oldEntry === newEntry { continue }
            if let oldEntry { found.append(oldEntry) }
            if let newEntry { found.append(newEntry) }
            // A node on one side (the other holds an entry or nothing there): all of its entries.
            if old.childMap & bit != 0 { forEach(old.children[index(old.childMap, bit)]) { found.append($0) } }
            if new.childMap & bit != 0 { forEach(new.children[index(new.childMap, bit)]) { found.append($0) } }
        }
    }

    /// Checks the trie's shape (tests): maps and slots agree, every key lies on
    /// its hash's path, no child is empty or a lone entry, and `count` entries in all.
    static func isWellFormed(_ root: HashTrieNode, count: Int) -> Bool {
        var total = 0
        func check(_ node: HashTrieNode, shift: Int, path: UInt64, isRoot: Bool) -> Bool {
            if node.isCollision {
                guard shift > lastShift, node.entries.count >= 2 else { return false }
                total += node.entries.count
                return node.entries.allSatisfy { $0.hash == node.entries[0].hash }
            }
            if !isRoot && (node.entries.count + node.children.count == 0 || node.singleEntry != nil) { return false }
            let mask: UInt64 = shift >= lastShift ? ~0 : (1 &<< UInt64(shift + digitBits)) &- 1
            var digits = node.entryMap
            for entry in node.entries {
                let bit = digits & (0 &- digits)
                digits &= ~bit
                guard entry.hash & mask == path | UInt64(bit.trailingZeroBitCount) &<< UInt64(shift) else {
                    return false
                }
                total += 1
            }
            digits = node.childMap
            for child in node.children {
                let bit = digits & (0 &- digits)
                digits &= ~bit
                let digit = UInt64(bit.trailingZeroBitCount) &<< UInt64(shift)
                guard check(child, shift: shift + digitBits, path: path | digit, isRoot: false) else { return false }
            }
            return true
        }
        return check(root, shift: 0, path: 0, isRoot: true) && total == count
    }
}
