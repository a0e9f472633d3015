import Foundation
import Substances

/// What a journal and a diff printer record of a commit's changes, read through the changes'
/// values (`changedValues(at:)`) and states: values as JSON, bounded, secrets redacted, `_`
/// properties left out.
extension SubstanceChanges {
    /// The changed keys with their values, as a journal records them (on the bus): each value cut
    /// to about `limit` bytes of JSON, secret keys redacted. Just enough to rebuild the state
    /// exactly, and no more: a key with changed keys below it is left out while it is a value on
    /// both sides (its children say what changed; a 50,000-entry dictionary with one entry changed
    /// records that entry); where it is nil or missing on one side (an optional that appears or
    /// goes), it is recorded whole and its children are not. A side where a key did not exist (an
    /// entry added or removed) is recorded as not existing, not as `null`.
    func journalKeyChanges(limit: Int) -> [KeyChange] {
        let count = self.count
        guard count > 0 else { return [] }
        // One key (most commits): no parent among the keys, nothing to order.
        if count == 1 {
            // The two sides taken apart at once: passed on as a pair, they were copied as a
            // tuple, through the runtime, at each call (scenario S1j).
            let key = key(at: 0)
            let (old, new) = changedValues(at: 0)
            let change = Self.keyChange(key, old, new, secrets: secrets, limit: limit)
            guard change.mayHaveElements else { return [change] }
            return elementChanges(key, old, new, change, secrets: secrets, limit: limit)
        }
        let keys = (0..<count).map { key(at: $0) }
        // A key with changed keys below it: its children carry what changed, unless it is recorded
        // whole. (Found by the keys' parents, so a commit of many keys costs their number.)
        var parents: Set<String> = []
        for key in keys { DottedKey.forEachParent(of: key) { parents.insert($0) } }
        // Parents first, so that a parent recorded whole is known before its children.
        let order = parents.isEmpty ? Array(0..<count) : (0..<count).sorted { depth(keys[$0]) < depth(keys[$1]) }
        // Looked up by each key's parents, not searched: a commit that adds many entries records
        // each whole, and a search of them per key was quadratic (20,000 entries: 207 s).
        var whole: Set<String> = []
        var recorded: [(slot: Int, change: KeyChange)] = []
        recorded.reserveCapacity(count)
        let secrets = self.secrets
        for slot in order {
            let key = keys[slot]
            if !whole.isEmpty, DottedKey.hasParent(of: key, in: whole) { continue }
            let (old, new) = changedValues(at: slot)
            if parents.contains(key) {
                // A value on both sides: its children say what changed.
                guard old.isNilOrAbsent || new.isNilOrAbsent else { continue }
                whole.insert(key)
            }
            let change = Self.keyChange(key, old, new, secrets: secrets, limit: limit)
            if change.mayHaveElements {
                for element in elementChanges(key, old, new, change, secrets: secrets, limit: limit) {
                    recorded.append((slot, element))
                }
            } else {
                recorded.append((slot, change))
            }
        }
        if !parents.isEmpty { recorded.sort { $0.slot < $1.slot } }
        return recorded.map(\.change)
    }

    /// The number of components of a dotted key, escapes aside (a parent has fewer than its
    /// children).
    private func depth(_ key: String) -> Int {
        key.utf8.count { $0 == UInt8(ascii: ".") }
    }

    /// For an array, its changed elements, each at its index, compared before they are cut to the
    /// limit (a big array with one changed element records that element exactly): the positions
    /// both sides hold whose elements differ, in order; then, when the array grew, each new element
    /// at its index, as not existing before (in order: each is appended); when it shrank, each
    /// element gone, as not existing after (from the last: each is the last when it goes). The
    /// key's `change` itself when that would record no fewer values than the array has positions
    /// (every element changed, or the front was removed), or it is no array. Out of line: the rarer
    /// case.
    @inline(never)
    private func elementChanges(
        _ key: String, _ oldValue: ChangedValue, _ newValue: ChangedValue, _ change: KeyChange,
        secrets: SecretKeys, limit: Int
    ) -> [KeyChange] {
        let whole = change.cut ? Self.keyChange(key, oldValue, newValue, secrets: secrets, limit: .max) : change
        guard case .array(let old) = whole.old, case .array(let new) = whole.new else { return [change] }
        let (shared, longest) = (min(old.count, new.count), max(old.count, new.count))
        let changed = (0..<shared).filter { old[$0] != new[$0] }
        // Each changed position, and each position only one side holds.
        guard changed.count + (longest - shared) < longest else { return [change] }
        func element(_ index: Int, oldExists: Bool = true, newExists: Bool = true) -> KeyChange {
            let oldElement = oldExists ? old[index].bounded(to: limit) : (value: .null, cut: false)
            let newElement = newExists ? new[index].bounded(to: limit) : (value: .null, cut: false)
            return KeyChange(
                key: key + "." + String(index), old: oldElement.value, new: newElement.value,
                cut: oldElement.cut || newElement.cut, oldExists: oldExists, newExists: newExists)
        }
        return changed.map { element($0) } + (shared..<new.count).map { element($0, oldExists: false) }
            + (shared..<old.count).reversed().map { element($0, newExists: false) }
    }

    /// One key's change as the journal records it: its values captured, secrets redacted, a side
    /// where it did not exist said so.
    fileprivate static func keyChange(
        _ key: String, _ oldValue: ChangedValue, _ newValue: ChangedValue, secrets: SecretKeys, limit: Int
    ) -> KeyChange {
        let oldExists: Bool
        let newExists: Bool
        if case .absent = oldValue { oldExists = false } else { oldExists = true }
        if case .absent = newValue { newExists = false } else { newExists = true }
        // The key itself secret (its values never read), or a secret below it
        // (`account.password` in `account`, `history.password` in every element of `history`),
        // redacted in its values. A state without secrets spells no key out for them.
        let progress = secrets.isEmpty ? nil : secrets.progress(at: key)
        if let progress, progress.isSecret(in: secrets) {
            return KeyChange(
                key: key, old: oldExists ? .redacted : .null, new: newExists ? .redacted : .null, oldExists: oldExists,
                newExists: newExists)
        }
        var (old, new) = (
            JournalValue.captured(oldValue, limit: limit), JournalValue.captured(newValue, limit: limit)
        )
        if let progress {
            old.value = old.value.redacting(secrets, from: progress)
            new.value = new.value.redacting(secrets, from: progress)
        }
        return KeyChange(
            key: key, old: old.value, new: new.value, cut: old.cut || new.cut, oldExists: oldExists,
            newExists: newExists)
    }

    /// The state before the commit as a journal's starting point: `_`-prefixed properties left
    /// out, secret keys redacted, cut to about `limit` bytes.
    func journalOldState(limit: Int) -> JournalValue? {
        guard let old = states?.old else { return nil }
        return JournalValue(encoding: old).stateValue(of: old).redacting(secrets).bounded(to: limit).value
    }

    /// The committed state as JSON, for a journal (nil if it cannot be encoded).
    func encodedNewState() -> Data? {
        guard let new = states?.new else { return nil }
        // A journal's data, like its values: no secret key, no `_` property (a replay takes those
        // from the substance it replays into).
        return JournalValue(encoding: new).strippingInternalKeys(of: new).removing(secrets, from: secrets.root)
            .jsonData
    }
}

extension ChangedBits {
    /// The change as ``SubstanceChanges/journalKeyChanges(limit:)`` records it (its only one):
    /// read from the bits kept, the values are those read at the commit. (No secret is read:
    /// changes whose state has secret keys are kept as their values, never as bits.)
    func journalKeyChange(limit: Int) -> KeyChange {
        let (old, new) = values
        return SubstanceChanges.keyChange(key, old, new, secrets: .none, limit: limit)
    }
}

extension KeyChange {
    /// Whether the change may be told element by element: both sides arrays, or cut (an array may
    /// have been cut).
    fileprivate var mayHaveElements: Bool {
        if cut { return true }
        guard case .array = old, case .array = new else { return false }
        return true
    }
}

extension DottedKey {
    /// Calls `body` with each parent of the dotted key `key`, nearest the root first (`a`, then
    /// `a.b`, for `a.b.c`): its prefixes that end before a dot that is no escaped one.
    static func forEachParent(of key: String, _ body: (String) -> Void) {
        var escaped = false
        var index = key.utf8.startIndex
        while index != key.utf8.endIndex {
            let byte = key.utf8[index]
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: ".") {
                body(String(key[..<index]))
            }
            key.utf8.formIndex(after: &index)
        }
    }

    /// Whether a parent of the dotted key `key` is in `keys`.
    static func hasParent(of key: String, in keys: Set<String>) -> Bool {
        var found = false
        forEachParent(of: key) { if !found, keys.contains($0) { found = true } }
        return found
    }
}
