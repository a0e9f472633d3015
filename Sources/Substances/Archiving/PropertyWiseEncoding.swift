/// Runs a state's own `encode(to:)` to check that it encodes the state property by property, and
/// takes from it the values a patch sets (see `ArchivePatchCapture`).
///
/// A patch is exact only when the state's encoding is the sum of its properties' encodings, each
/// under its name: then the encoding of what did not change did not change, and the places that
/// changed are all a patch needs. Swift's synthesized `Codable` encodes so; a hand-written
/// `encode(to:)` may not (a property written as something derived from others, a key of its own).
/// Rather than trust it, every archived commit runs the state's `encode(to:)` through this encoder,
/// which encodes nothing but checks, at the state's level and at every nested struct's the plan
/// descends into, that each key written is a property of that level, written once, as the value
/// the property holds (the same bits, or `==`, which Swift's `Equatable` promises means
/// interchangeable). Any other container, key or value fails the check, and the substance's
/// writes are whole from then on. The cost: a call per property, not per element of a collection.
///
/// A level's `_`-prefixed stored properties (internal state) are written like any other, but no
/// change says whether they changed (the reduction does not compare them): every patch sets each
/// one the encoding writes, and removes each one it does not (an optional that is nil, one its
/// coding keys leave out: a removal of what is not there changes nothing), so that a patched
/// archive holds what a whole write of the state would.
final class PropertyWiseEncoding {
    /// A value a patch sets, as the state's encoding passed it; or a place found missing from the
    /// encoding (an optional that is nil now is not written: the patch removes it).
    enum Operation {
        case set(path: [String], value: any Encodable)
        case remove(path: [String])
    }

    private let plan: ReductionPlan
    /// The state's bytes, for the stored values the written ones are compared with.
    private let state: StateMemory
    /// What the patch sets, in the order the encoding wrote it.
    private(set) var operations: [Operation] = []
    /// Whether the encoding was found not to be property by property.
    private(set) var failed = false

    private init(plan: ReductionPlan, state: StateMemory) {
        self.plan = plan
        self.state = state
    }

    /// Checks `state`'s encoding and takes the values at `places`: the operations of its patch, or
    /// nil when the encoding is not property by property (or `places` names what it cannot take).
    static func operations<S: State>(of state: S, plan: ReductionPlan, places: PatchPlaces) -> [Operation]? {
        StateMemory.withMemory(of: state) { memory -> [Operation]? in
            let encoding = PropertyWiseEncoding(plan: plan, state: memory)
            let level = Level(encoding: encoding, parent: -1, path: [], places: places)
            do {
                try state.encode(to: level)
            } catch {
                return nil
            }
            level.finish()
            return encoding.failed ? nil : encoding.operations
        }
    }

    fileprivate func fail() { failed = true }

    fileprivate func append(_ operation: Operation) { operations.append(operation) }

    /// Whether `value`, written for the plan entry at `index`, is the value the state stores there.
    fileprivate func isStored<T>(_ value: T, at index: Int) -> Bool {
        let entry = plan.entries[index]
        return isStored(value, offset: entry.offset, type: entry.type)
    }

    /// Whether `value` is the value the state stores at `offset`, a property of type `type`.
    fileprivate func isStored<T>(_ value: T, offset: Int, type: any Any.Type) -> Bool {
        let stored = state.advanced(by: offset)
        if T.self == type { return PropertyWiseEncoding.same(value, stored) }
        // An optional written through `encodeIfPresent`: its wrapped value.
        guard let optional = type as? any OptionalProtocol.Type, optional.wrappedType == T.self,
            let storedValue = stored.load(as: Optional<T>.self)
        else { return false }
        return StateMemory.withMemory(of: storedValue) { PropertyWiseEncoding.same(value, $0) }
    }

    /// Whether `value` has the bits of the `T` at `stored`, or is `==` to it.
    private static func same<T>(_ value: T, _ stored: StateMemory) -> Bool {
        if StateMemory.withMemory(of: value, { $0.sameBits(as: stored, size: MemoryLayout<T>.size) }) {
            return true
        }
        guard let equatable = value as? any Equatable else { return false }
        return equal(equatable, stored)
    }

    private static func equal<E: Equatable>(_ value: E, _ stored: StateMemory) -> Bool {
        value == stored.load(as: E.self)
    }

    fileprivate var entries: [ReductionPlan.Entry] { plan.entries }

    fileprivate func index(of key: String) -> Int? { plan.keyIndex[key] }

    fileprivate func hasNestedEntries(_ index: Int) -> Bool { plan.hasNestedEntries(index) }

    /// The `_`-prefixed stored properties of the level of the plan entry `parent` (-1: the state).
    fileprivate func internalFields(of parent: Int) -> [ReductionPlan.InternalField] {
        plan.internalFields.isEmpty ? [] : plan.internalFields[parent] ?? []
    }

    /// One level of the encoding: the state's, or a nested struct's the plan descends into.
    fileprivate final class Level: Encoder {
        let encoding: PropertyWiseEncoding
        /// The plan entry of the struct at this level, or -1 for the state.
        let parent: Int
        let path: [String]
        /// The places at or below this level to take (nil: none, only checked).
        let places: PatchPlaces?
        /// The keys written at this level.
        var written: Set<String> = []

        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        init(encoding: PropertyWiseEncoding, parent: Int, path: [String], places: PatchPlaces?) {
            self.encoding = encoding
            self.parent = parent
            self.path = path
            self.places = places
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Container<Key>(level: self))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            encoding.fail()
            return Refused()
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            encoding.fail()
            return Refused()
        }

        /// `value`, written under `key` at this level.
        func write<T: Encodable>(_ value: T, forKey key: String) throws {
            guard !encoding.failed else { return }
            if key.hasPrefix("_") { return writeInternal(value, forKey: key) }
            let entryKey = path.isEmpty ? key : path.joined(separator: ".") + "." + key
            guard let index = encoding.index(of: entryKey), encoding.entries[index].parent == parent,
                written.insert(key).inserted, encoding.isStored(value, at: index)
            else { return encoding.fail() }
            let place = places?.children[key]
            if place?.whole == true {
                encoding.append(.set(path: path + [key], value: value))
            } else if encoding.hasNestedEntries(index) {
                // A nested struct: checked below, and its changed places taken.
                let level = Level(encoding: encoding, parent: index, path: path + [key], places: place)
                try value.encode(to: level)
                level.finish()
            } else if let place, !place.children.isEmpty {
                // Entries of a `[String: V]` dictionary (Swift's own encoding: each value under its key).
                guard encoding.entries[index].isDictionary, let entries = value as? any ArchivableEntries else {
                    return encoding.fail()
                }
                for entryKey in place.children.keys.sorted() {
                    if let entry = entries.archivedEntry(entryKey) {
                        encoding.append(.set(path: path + [key, entryKey], value: entry))
                    } else {
                        encoding.append(.remove(path: path + [key, entryKey]))
                    }
                }
            }
        }

        /// `value`, written under `key`, a `_`-prefixed stored property of this level: set in the
        /// patch whatever changed (see `PropertyWiseEncoding`).
        private func writeInternal<T: Encodable>(_ value: T, forKey key: String) {
            guard let field = encoding.internalFields(of: parent).first(where: { $0.name == key }),
                written.insert(key).inserted, encoding.isStored(value, offset: field.offset, type: field.type)
            else { return encoding.fail() }
            encoding.append(.set(path: path + [key], value: value))
        }

        /// After the level's `encode(to:)`: a `_` property it did not write, and a place it did
        /// not write, are not in the encoding now.
        func finish() {
            guard !encoding.failed else { return }
            for field in encoding.internalFields(of: parent) where !written.contains(field.name) {
                encoding.append(.remove(path: path + [field.name]))
            }
            guard let places else { return }
            for key in places.children.keys.sorted() where !written.contains(key) {
                encoding.append(.remove(path: path + [key]))
            }
        }
    }

    fileprivate struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let level: Level
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { level.encoding.fail() }
        mutating func encode(_ value: Bool, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: String, forKey key: Key) throws {
            try level.write(value, forKey: key.stringValue)
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            try level.write(value, forKey: key.stringValue)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try level.write(value, forKey: key.stringValue) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws {
            try level.write(value, forKey: key.stringValue)
        }
        mutating func encode(_ value: UInt32, forKey key: Key) throws {
            try level.write(value, forKey: key.stringValue)
        }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            try level.write(value, forKey: key.stringValue)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try level.write(value, forKey: key.stringValue)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            level.encoding.fail()
            return KeyedEncodingContainer(Container<NestedKey>(level: level))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            level.encoding.fail()
            return Refused()
        }

        mutating func superEncoder() -> any Encoder {
            level.encoding.fail()
            return level
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            level.encoding.fail()
            return level
        }
    }

    /// What a container the check refuses takes: everything, to no effect.
    fileprivate struct Refused: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        mutating func encodeNil() throws {}
        mutating func encode<T: Encodable>(_ value: T) throws {}
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(RefusedKeyed<NestedKey>())
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { Refused() }
        mutating func superEncoder() -> any Encoder { RefusedEncoder() }
    }

    fileprivate struct RefusedKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(RefusedKeyed<NestedKey>())
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Refused() }
        mutating func superEncoder() -> any Encoder { RefusedEncoder() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { RefusedEncoder() }
    }

    fileprivate struct RefusedEncoder: Encoder {
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(RefusedKeyed<Key>())
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Refused() }
        func singleValueContainer() -> any SingleValueEncodingContainer { Refused() }
    }
}

/// A `[String: V]` dictionary, whose entries a patch holds one by one.
protocol ArchivableEntries {
    /// The entry under `key`, as its own encodable value; nil when there is none.
    func archivedEntry(_ key: String) -> (any Encodable)?
}

extension Dictionary: ArchivableEntries where Key == String, Value: Encodable {
    func archivedEntry(_ key: String) -> (any Encodable)? { self[key] }
}

extension BigDictionary: ArchivableEntries where Key == String, Value: Encodable {
    func archivedEntry(_ key: String) -> (any Encodable)? { self[key] }
}
