import Substances

/// One changed key of a mix in a ``MixJournal``: its value before and after, as JSON.
///
/// Values are bounded (see ``MixJournal/valueLimit``): a longer string, array or object is cut,
/// what was cut said in the value itself (`"… 9,000 more"`), and ``cut`` is set. A key the state
/// marks secret (`State.secretKeys`) holds ``JournalValue/redacted`` on both sides.
///
/// A key that did not exist on one side (a dictionary's entry added or removed, an array's element
/// appended or gone, a key below an optional that appears) is told apart from one whose value is
/// `null`: ``oldExists`` or ``newExists`` is false, and the JSON leaves out `old` or `new`. So a
/// rebuilt state removes what was removed, and sets to `null` what became nil.
public struct KeyChange: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The dotted key (`info.counter`).
    public let key: String
    /// The value before the mix (``JournalValue/null`` when the key did not exist: see
    /// ``oldExists``).
    public let old: JournalValue
    /// The value after the mix (``JournalValue/null`` when the key no longer exists: see
    /// ``newExists``).
    public let new: JournalValue
    /// Whether a value was cut to fit the journal's bound.
    public let cut: Bool
    /// Whether the key existed before the mix.
    public let oldExists: Bool
    /// Whether the key exists after the mix (false: it was removed).
    public let newExists: Bool

    /// A key's change from `old` to `new`; a side that did not exist says so.
    public init(
        key: String, old: JournalValue, new: JournalValue, cut: Bool = false, oldExists: Bool = true,
        newExists: Bool = true
    ) {
        self.key = key
        self.old = old
        self.new = new
        self.cut = cut
        self.oldExists = oldExists
        self.newExists = newExists
    }

    enum CodingKeys: String, CodingKey {
        case key, old, new, cut
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        if oldExists { try container.encode(old, forKey: .old) }
        if newExists { try container.encode(new, forKey: .new) }
        if cut { try container.encode(true, forKey: .cut) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        // Cut as when recorded, for a file made elsewhere that holds more: at four times the
        // journal's value limit, which the journal's own values (cut at about the limit) never
        // reach, so that reading its own file back changes nothing.
        let limit = 4 * MixJournal.valueLimit
        oldExists = container.contains(.old)
        newExists = container.contains(.new)
        let old = (try container.decodeIfPresent(JournalValue.self, forKey: .old) ?? .null).bounded(to: limit)
        let new = (try container.decodeIfPresent(JournalValue.self, forKey: .new) ?? .null).bounded(to: limit)
        self.old = old.value
        self.new = new.value
        cut = try container.decodeIfPresent(Bool.self, forKey: .cut) ?? false || old.cut || new.cut
    }

    /// `key: old → new` (`(none)` for a side where the key did not exist).
    public var description: String {
        "\(key): \(oldExists ? "\(old)" : "(none)") → \(newExists ? "\(new)" : "(none)")"
    }
}
