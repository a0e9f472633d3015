/// A change the reduction found below a property: a dotted key with its flattened values.
typealias FlatChange = (key: String, old: FlatValue?, new: FlatValue?)

/// String-keyed dictionaries, whose changed keys the reduction finds entry by entry: what a commit
/// that changes one entry of a large dictionary costs is a pass over its entries (a lookup and a
/// comparison of bits each), where flattening both dictionaries cost a tree of values per entry
/// (scenario S8d, measured against its floor: the dictionary copied, one entry changed, the copy
/// compared with `==`; performance.md, "Big states").
///
/// Exact: an entry whose significant bytes are identical on both sides flattens alike on both
/// (the flattening is a function of the value's bits), so it cannot have changed; every other
/// entry, added, removed or with different bits, is flattened alone on each side and compared as
/// the whole dictionary's flattening compared it, with the same keys in the same order. A
/// randomized test checks both give the same changes.
protocol StringKeyedDictionary {
    /// Compares the dictionaries at two addresses; appends the changed keys below `prefix` (the
    /// property's key), entries sorted by key; returns whether any changed, or nil when this path
    /// does not apply (an optional dictionary on one side only) and the flattening must.
    static func entryChanges() -> (StateMemory, StateMemory, String, inout [FlatChange]) -> Bool?
}

extension Dictionary: StringKeyedDictionary where Key == String {
    static func entryChanges() -> (StateMemory, StateMemory, String, inout [FlatChange]) -> Bool? {
        let scan = DictionaryWords.scanner(of: Value.self, significant: SignificantBytes.of(Value.self))
        return { old, new, prefix, changes in
            let candidates = scan(old, new)
            if candidates.isEmpty { return false }
            return old.withValue(as: [String: Value].self) { old in
                new.withValue(as: [String: Value].self) { new in
                    diff(copy old, copy new, candidates: candidates, prefix: prefix, into: &changes)
                }
            }
        }
    }

    /// Appends the changed entries' keys, as ``FlatValue/diff(_:_:prefix:into:)`` of both
    /// dictionaries flattened whole would; whether any changed.
    static func diff(
        _ old: [String: Value], _ new: [String: Value], candidates: [String], prefix: String,
        into changes: inout [FlatChange]
    ) -> Bool {
        entryDiff(candidates: candidates, prefix: prefix, old: { old[$0] }, new: { new[$0] }, into: &changes)
    }
}

/// Appends the changes of the entries under `candidates`, read from the two sides with `old` and
/// `new`, as ``FlatValue/diff(_:_:prefix:into:)`` of both dictionaries flattened whole would: keys
/// sorted, each entry's value flattened alone; whether any changed. Plain and big dictionaries
/// both report their entries through it.
func entryDiff<Value>(
    candidates: consuming [String], prefix: String, old: (String) -> Value?, new: (String) -> Value?,
    into changes: inout [FlatChange]
) -> Bool {
    if candidates.isEmpty { return false }
    // Sorted where they lie: the caller's array is its own to give.
    var candidates = candidates
    candidates.sort()
    func flatten(_ value: Value) -> FlatValue {
        guard let encodable = value as? any Encodable else { return .null }
        return FlatEncoder.flatten(encodable)
    }
    var changed = false
    for key in candidates {
        // A key with a dot is escaped (`a\.b`): it never reads as the nested path `a.b`.
        let path = prefix.isEmpty ? DottedKey.escape(key) : prefix + "." + DottedKey.escape(key)
        if FlatValue.diff(old(key).map(flatten), new(key).map(flatten), prefix: path, into: &changes) {
            changed = true
        }
    }
    return changed
}

extension Optional: StringKeyedDictionary where Wrapped: StringKeyedDictionary {
    static func entryChanges() -> (StateMemory, StateMemory, String, inout [FlatChange]) -> Bool? {
        let wrapped = Wrapped.entryChanges()
        return { old, new, prefix, changes in
            let both: (Wrapped, Wrapped)? = old.withValue(as: Wrapped?.self) { old in
                new.withValue(as: Wrapped?.self) { new in
                    guard let old = copy old, let new = copy new else { return nil }
                    return (old, new)
                }
            }
            guard let (old, new) = both else { return nil }
            return StateMemory.withMemory(of: old) { old in
                StateMemory.withMemory(of: new) { new in wrapped(old, new, prefix, &changes) }
            }
        }
    }
}

/// A big dictionary's changed entries, found by comparing its two tries where they do not share
/// nodes (a path or two for a commit that wrote an entry or two), then as a plain dictionary's
/// are: each candidate flattened on both sides and compared, with the same keys in the same order.
extension BigDictionary: StringKeyedDictionary where Key == String {
    static func entryChanges() -> (StateMemory, StateMemory, String, inout [FlatChange]) -> Bool? {
        let significant = SignificantBytes.of(Value.self)
        return { old, new, prefix, changes in
            old.withValue(as: BigDictionary.self) { old in
                new.withValue(as: BigDictionary.self) { new in
                    let old = copy old
                    let new = copy new
                    return entryDiff(
                        candidates: candidates(old, new) { significant.same($0, $1) }, prefix: prefix,
                        old: { old[$0] }, new: { new[$0] }, into: &changes)
                }
            }
        }
    }
}

extension BigDictionary: KeyedByContent where Key == String {}
