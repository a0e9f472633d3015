import Foundation
import Substances

/// What a journal and a diff printer record of a commit's changes, read through the changes'
/// values (`changedValues(at:)`) and states: values as JSON, bounded, secrets redacted, `_`
/// properties left out.
extension SubstanceChanges {
    /// The changed keys with their values, as a journal records them (on the bus): each value cut
    /// to about `limit` bytes of JSON, secret keys redacted; a key some other changed key is below
    /// (`info` beside `info.counter`) is left out, its children say what changed.
    func journalKeyChanges(limit: Int) -> [KeyChange] {
        let count = self.count
        var changes: [KeyChange] = []
        changes.reserveCapacity(count)
        let secrets = self.secrets
        for slot in 0..<count {
            let key = key(at: slot)
            // A parent (`info` beside `info.counter`): its children carry the values.
            if count > 1, isParent(key) { continue }
            // The key itself secret (its values never read), or a secret below it
            // (`account.password` in `account`, `history.password` in every element of `history`),
            // redacted in its values. A state without secrets spells no key out for them.
            let progress = secrets.isEmpty ? nil : secrets.progress(at: key)
            if let progress, progress.isSecret(in: secrets) {
                changes.append(KeyChange(key: key, old: .redacted, new: .redacted))
                continue
            }
            let values = changedValues(at: slot)
            var (old, new) = (
                JournalValue.captured(values.old, limit: limit), JournalValue.captured(values.new, limit: limit)
            )
            if let progress {
                old.value = old.value.redacting(secrets, from: progress)
                new.value = new.value.redacting(secrets, from: progress)
            }
            changes.append(KeyChange(key: key, old: old.value, new: new.value, cut: old.cut || new.cut))
        }
        return changes
    }

    /// Whether another changed key is below `key`.
    private func isParent(_ key: String) -> Bool {
        (0..<count).contains { DottedKey.isKey(self.key(at: $0), below: key) }
    }

    /// The state before the commit as a journal's starting point: `_`-prefixed properties left
    /// out, secret keys redacted, cut to about `limit` bytes.
    func journalOldState(limit: Int) -> JournalValue? {
        guard let old = states?.old else { return nil }
        return JournalValue(encoding: old).strippingInternalKeys(of: old).redacting(secrets).bounded(to: limit).value
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
