import Foundation
import Substances

/// The values a ``MixJournal`` records of states: converted on the bus as they are committed
/// (numbers, booleans and strings at once; other values through their `Codable` encoding),
/// bounded in size, with secrets and `_`-prefixed properties left out.
extension JournalValue {
    /// The journal form of `value`, a key's value in a state (nil: the key did not exist), cut to
    /// about `limit` bytes of JSON; whether it was cut.
    static func captured(_ value: Any?, limit: Int) -> (value: JournalValue, cut: Bool) {
        guard let value else { return (.null, false) }
        switch value {
        case let value as Int: return (.int(value), false)
        case let value as Double: return (.double(value), false)
        case let value as Bool: return (.bool(value), false)
        case let value as String: return JournalValue.string(value).bounded(to: limit)
        default:
            // An optional: what it holds, captured as itself (nil: null).
            guard let unwrapped = unwrappingOptionals(value) else { return (.null, false) }
            if !isSameType(unwrapped, value) { return captured(unwrapped, limit: limit) }
            return JournalValue(encoding: value).stateValue(of: value).bounded(to: limit)
        }
    }

    /// The journal form of a changed value (see `SubstanceChanges.changedValues(at:)`), cut to
    /// about `limit` bytes of JSON; whether it was cut. Numbers, booleans and strings are taken as
    /// they were read, without a cast.
    static func captured(_ value: ChangedValue, limit: Int) -> (value: JournalValue, cut: Bool) {
        switch value {
        case .int(let value): (.int(value), false)
        case .double(let value): (.double(value), false)
        case .bool(let value): (.bool(value), false)
        case .string(let value): JournalValue.string(value).bounded(to: limit)
        case .other(let value): captured(value, limit: limit)
        case .flat(let value):
            // A flattened value has lost its type's name: the unrepresentable value says why.
            JournalValue(flattened: value)
                .limitingNesting(else: "a value nested more than \(JournalValue.nestingLimit) levels deep")
                .bounded(to: limit)
        case .absent: (.null, false)
        }
    }

    /// A value as the change reduction flattened it (below a dictionary, an expandable property):
    /// its structure as it was encoded, an object reference by its type.
    init(flattened value: FlatValue) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = Int(exactly: value).map(JournalValue.int) ?? .double(Double(value))
        // Past `Int.max`, unrepresentable: a `Double` would hold it inexactly.
        case .uint(let value): self = Int(exactly: value).map(JournalValue.int) ?? .unrepresentable(type: "UInt64")
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .ref: self = .unrepresentable(type: value.referencedObject.map { "\(type(of: $0))" } ?? "AnyObject")
        case .keyed(let values): self = .object(values.mapValues(JournalValue.init(flattened:)))
        case .unkeyed(let values): self = .array(values.map(JournalValue.init(flattened:)))
        }
    }

    /// The value cut to about `limit` bytes of JSON, what was cut said where it was (a string ends
    /// with `… (N characters)`, an array with `"… N more"`, an object gets a `"…"` key); whether
    /// anything was cut.
    func bounded(to limit: Int) -> (value: JournalValue, cut: Bool) {
        var budget = limit
        var cut = false
        let value = bounded(budget: &budget, cut: &cut)
        return (value, cut)
    }

    private func bounded(budget: inout Int, cut: inout Bool) -> JournalValue {
        switch self {
        case .string(let text):
            let size = text.utf8.count + 2
            guard size > budget else {
                budget -= size
                return self
            }
            cut = true
            let kept = max(0, budget - 2)
            budget = 0
            return .string("\(text.prefix(kept))… (\(text.count) characters)")
        case .array(let values):
            var kept: [JournalValue] = []
            for (index, element) in values.enumerated() {
                guard budget > 0 else {
                    cut = true
                    kept.append(.string("… \(values.count - index) more"))
                    break
                }
                kept.append(element.bounded(budget: &budget, cut: &cut))
                budget -= 1
            }
            return .array(kept)
        case .object(let values):
            var kept: [String: JournalValue] = [:]
            let sorted = values.sorted(by: { $0.key < $1.key })
            for (index, (key, value)) in sorted.enumerated() {
                guard budget > 0 else {
                    cut = true
                    kept["…"] = .string("\(sorted.count - index) more keys")
                    break
                }
                budget -= key.utf8.count + 3
                kept[key] = value.bounded(budget: &budget, cut: &cut)
            }
            return .object(kept)
        case .null, .bool, .int, .double, .unrepresentable, .redacted:
            budget -= 8
            return self
        }
    }

    /// The value without the keys of `_`-prefixed properties, at any depth: internal state is
    /// never recorded. `value` is what it encodes: a dictionary's `_` keys are data, and kept
    /// (told apart from properties through the flattening the reduction uses).
    func strippingInternalKeys(of value: Any) -> JournalValue {
        guard hasInternalLookingKey else { return self }
        return stripping(against: (value as? any Encodable).map { FlatValue(encoding: $0) }, retaggingDoubles: false)
    }

    /// The value (read back from `value`'s JSON) as a state's value is recorded: without the keys
    /// of `_`-prefixed properties (as ``strippingInternalKeys(of:)``), and with its whole
    /// `Double`s as doubles. JSON writes a whole `Double` as an integer (`5`), which reads back as
    /// `.int`; the same property changed alone is recorded as `.double(5)`, and a rebuilt state
    /// would hold either, by the way the value came (issue found by a client: a start's `5`, a
    /// change's `5.0`).
    func stateValue(of value: Any) -> JournalValue {
        guard hasInternalLookingKey || hasRetypedLookingNumber else { return self }
        return stripping(against: (value as? any Encodable).map { FlatValue(encoding: $0) }, retaggingDoubles: true)
    }

    /// Whether an object at any depth has a `_`-prefixed key: most values have none, and need not
    /// be flattened to be stripped.
    private var hasInternalLookingKey: Bool {
        switch self {
        case .object(let values): values.contains { $0.key.hasPrefix("_") || $0.value.hasInternalLookingKey }
        case .array(let values): values.contains { $0.hasInternalLookingKey }
        default: false
        }
    }

    /// Whether it holds, at any depth, a number JSON may have read as another type than the
    /// state's: an integer (JSON writes a whole `Double` as one), or a whole `Double` past
    /// `Int.max` (an unsigned integer too large for `Int` reads as one). `flat` tells them apart.
    private var hasRetypedLookingNumber: Bool {
        switch self {
        case .int: true
        case .double(let value): value >= 0x1p63 && value.rounded() == value
        case .object(let values): values.values.contains { $0.hasRetypedLookingNumber }
        case .array(let values): values.contains { $0.hasRetypedLookingNumber }
        default: false
        }
    }

    /// The value without the `_` keys that `flat` (the same value flattened, `_` properties left
    /// out) does not have; without every `_` key where `flat` says nothing. `retaggingDoubles`:
    /// an integer that `flat` has as a `Double` of the same value becomes that double.
    private func stripping(against flat: FlatValue?, retaggingDoubles: Bool) -> JournalValue {
        switch self {
        case .object(let values):
            var children: [String: FlatValue]?
            if case .keyed(let flatChildren)? = flat { children = flatChildren }
            var kept: [String: JournalValue] = [:]
            for (key, value) in values {
                if key.hasPrefix("_"), children?[key] == nil { continue }
                kept[key] = value.stripping(against: children?[key], retaggingDoubles: retaggingDoubles)
            }
            return .object(kept)
        case .array(let values):
            var elements: [FlatValue]?
            if case .unkeyed(let flatElements)? = flat, flatElements.count == values.count { elements = flatElements }
            return .array(
                values.indices.map { values[$0].stripping(against: elements?[$0], retaggingDoubles: retaggingDoubles) })
        case .int(let integer) where retaggingDoubles:
            if case .double(let double)? = flat, double == Double(integer) { return .double(double) }
            return self
        case .double where retaggingDoubles:
            // An unsigned integer past `Int.max`, which JSON read as a `Double` that holds it
            // inexactly (a state rebuilt with it decoded a wrong number, or none): unrepresentable,
            // as such a payload value is.
            if case .uint(let unsigned)? = flat, Int(exactly: unsigned) == nil {
                return .unrepresentable(type: "UInt64")
            }
            return self
        default:
            return self
        }
    }

    /// What is at `key` (dotted, as reactions name keys: a dictionary key's own dots escaped), if
    /// there is something.
    public func value(at key: String) -> JournalValue? {
        var current = self
        for component in DottedKey.components(of: key) {
            switch current {
            case .object(let values):
                guard let next = values[component] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Self.index(component, in: elements) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Sets what is at `key` (dotted, as in ``value(at:)``), making the objects on the way; an
    /// index just past an array's end appends to it.
    public mutating func set(_ newValue: JournalValue, at key: String) {
        // A key of one component (most of a full journal's folds: a top-level property) is set
        // in the object without the array of components.
        if Self.isOneComponent(key), case .object(var values) = self {
            self = .null  // the dictionary is changed in place, not copied
            values[key] = newValue
            self = .object(values)
            return
        }
        set(newValue, at: DottedKey.components(of: key)[...])
    }

    /// Removes what is at `key` (dotted, as in ``value(at:)``), if anything is: an object's entry
    /// goes, with nothing left in its place; an array's element goes, and those after it move down
    /// one place (the journal records a shrunk array's elements from the last, so each is the last
    /// when it goes).
    public mutating func remove(at key: String) {
        remove(at: DottedKey.components(of: key)[...])
    }

    /// Whether `key` is one component as it is written: no dot, no escape.
    private static func isOneComponent(_ key: String) -> Bool {
        !key.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") }
    }

    private mutating func remove(at components: ArraySlice<String>) {
        guard let first = components.first else { return }
        if case .array(var elements) = self, let index = Self.index(first, in: elements) {
            self = .null  // the array is changed in place, not copied
            if components.count == 1 {
                elements.remove(at: index)
            } else {
                elements[index].remove(at: components.dropFirst())
            }
            self = .array(elements)
            return
        }
        guard case .object(var values) = self else { return }
        self = .null  // the dictionary is changed in place, not copied
        if components.count == 1 {
            values[first] = nil
        } else if var child = values[first] {
            values[first] = nil
            child.remove(at: components.dropFirst())
            values[first] = child
        }
        self = .object(values)
    }

    /// The element `component` names in `elements`: its index, written in decimal digits alone,
    /// within the array (or just past its end, with `appending`: the journal records a grown
    /// array's new elements so); nil for any other component (an object's key that looks like a
    /// number stays a key where the state holds an object).
    private static func index(_ component: String, in elements: [JournalValue], appending: Bool = false) -> Int? {
        guard component.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let index = Int(component),
            index >= 0, index < elements.count + (appending ? 1 : 0)
        else { return nil }
        return index
    }

    /// Applies a recorded change: its new value set at its key, or the key removed when it no
    /// longer exists.
    public mutating func apply(_ change: KeyChange) {
        if change.newExists { set(change.new, at: change.key) } else { remove(at: change.key) }
    }

    private mutating func set(_ newValue: JournalValue, at components: ArraySlice<String>) {
        guard let first = components.first else {
            self = newValue
            return
        }
        // An array's element, at its index (the journal records an array's changed elements so),
        // or a new one just past its end (a grown array's).
        if case .array(var elements) = self, let index = Self.index(first, in: elements, appending: true) {
            self = .null  // the array is changed in place, not copied
            if index == elements.count { elements.append(.null) }
            elements[index].set(newValue, at: components.dropFirst())
            self = .array(elements)
            return
        }
        var values: [String: JournalValue] = [:]
        if case .object(let existing) = self {
            values = existing
            self = .null  // the dictionary is changed in place, not copied
        }
        // Changed where it lies (one lookup, no copy): a child read out and written back was shared
        // with the dictionary while it changed, and copied whole, a 50,000-entry dictionary for
        // its one changed entry.
        if components.count == 1 {
            values[first] = newValue
        } else {
            values[first, default: .null].set(newValue, at: components.dropFirst())
        }
        self = .object(values)
    }
}
