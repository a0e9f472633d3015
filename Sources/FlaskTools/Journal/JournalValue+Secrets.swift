import Substances

/// Secret keys applied to journal values at any depth (see `SecretKeys`).
extension JournalValue {
    /// The value, found at a place with `progress`, with every secret place in it redacted.
    package func redacting(_ secrets: SecretKeys, from progress: SecretKeys.Progress) -> JournalValue {
        if secrets.isEmpty || progress.isDead { return self }
        if progress.isSecret(in: secrets) { return .redacted }
        switch self {
        case .object(let values):
            var kept: [String: JournalValue] = [:]
            for (key, value) in values { kept[key] = value.redacting(secrets, from: secrets.step(progress, key)) }
            return .object(kept)
        case .array(let values):
            return .array(values.map { $0.redacting(secrets, from: progress) })
        default:
            return self
        }
    }

    /// A state's value with every secret place in it redacted.
    func redacting(_ secrets: SecretKeys) -> JournalValue { redacting(secrets, from: secrets.root) }

    /// The value of the dotted `key` with every secret place in it redacted (all of it when the
    /// key itself is secret).
    func redacting(_ secrets: SecretKeys, at key: String) -> JournalValue {
        secrets.isEmpty ? self : redacting(secrets, from: secrets.progress(at: key))
    }

    /// A state's value without its secret places (an object's secret keys left out, a secret
    /// array element made null): plain JSON a state can be decoded from once they are put back.
    func removing(_ secrets: SecretKeys, from progress: SecretKeys.Progress) -> JournalValue {
        if secrets.isEmpty || progress.isDead { return self }
        switch self {
        case .object(let values):
            var kept: [String: JournalValue] = [:]
            for (key, value) in values {
                let below = secrets.step(progress, key)
                if below.isSecret(in: secrets) { continue }
                kept[key] = value.removing(secrets, from: below)
            }
            return .object(kept)
        case .array(let values):
            return .array(values.map { $0.removing(secrets, from: progress) })
        default:
            return self
        }
    }

    /// The value with what ``removing(_:from:)`` and `strippingInternalKeys(of:)` left out put back
    /// from `source` (the same state type's value, where it has it): secret places, and `_`
    /// properties. `stripped` is `source` as the journal records it (`_` properties left out): a
    /// `_` key it keeps is a dictionary's entry, data like any other, and is not put back (a
    /// replay that removes it, or starts from a state without it, leaves it out). Array elements
    /// are matched by position.
    func puttingBack(
        _ secrets: SecretKeys, from source: JournalValue, stripped: JournalValue?, progress: SecretKeys.Progress
    ) -> JournalValue {
        switch (self, source) {
        case (.object(var values), .object(let sources)):
            var strippedValues: [String: JournalValue]?
            if case .object(let kept)? = stripped { strippedValues = kept }
            for (key, kept) in sources {
                let below = secrets.step(progress, key)
                let isInternalProperty = key.hasPrefix("_") && strippedValues?[key] == nil
                if isInternalProperty || below.isSecret(in: secrets) {
                    if values[key] == nil || values[key] == .redacted { values[key] = kept }
                } else if let value = values[key] {
                    values[key] = value.puttingBack(
                        secrets, from: kept, stripped: strippedValues?[key], progress: below)
                }
            }
            return .object(values)
        case (.array(let values), .array(let sources)):
            var strippedElements: [JournalValue]?
            if case .array(let kept)? = stripped, kept.count == sources.count { strippedElements = kept }
            return .array(
                values.indices.map { index in
                    index < sources.count
                        ? values[index].puttingBack(
                            secrets, from: sources[index], stripped: strippedElements?[index], progress: progress)
                        : values[index]
                })
        default:
            return self
        }
    }

    /// The value without the keys whose values are redacted, at any depth: what a type that
    /// decodes without its secrets can read (a redacted value is no JSON a type decodes).
    var droppingRedactedKeys: JournalValue {
        switch self {
        case .object(let values):
            guard values.values.contains(where: \.containsRedacted) else { return self }
            return .object(values.filter { $0.value != .redacted }.mapValues(\.droppingRedactedKeys))
        case .array(let values):
            guard values.contains(where: \.containsRedacted) else { return self }
            return .array(values.map(\.droppingRedactedKeys))
        default:
            return self
        }
    }

    /// The keys (dotted as a change's keys: a component's own dots escaped, an element by its
    /// index) at which it holds a redacted value, for the value at `key`.
    func redactedKeys(at key: String) -> [String] {
        switch self {
        case .redacted: [key]
        case .object(let values):
            values.flatMap { child, value in value.redactedKeys(at: key + "." + DottedKey.escape(child)) }
        case .array(let values): values.indices.flatMap { values[$0].redactedKeys(at: key + ".\($0)") }
        default: []
        }
    }

    /// Whether a redacted value lies anywhere in it.
    var containsRedacted: Bool {
        switch self {
        case .redacted: true
        case .object(let values): values.values.contains { $0.containsRedacted }
        case .array(let values): values.contains { $0.containsRedacted }
        default: false
        }
    }
}
