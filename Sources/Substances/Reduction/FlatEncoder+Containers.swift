struct FlatNodeEncoder: Encoder {
    let node: FlatNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeKeyed()
        return KeyedEncodingContainer(FlatKeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeUnkeyed()
        return FlatUnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FlatSingleContainer(node: node, codingPath: codingPath)
    }
}

struct FlatKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: FlatNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.keyedChild(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.keyedChild(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.string(value))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.double(value))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.double(Double(value)))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.int(Int64(value)))
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.int(Int64(value)))
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.int(Int64(value)))
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.int(Int64(value)))
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws { node.keyedChild(key.stringValue).set(.int(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.uint(UInt64(value)))
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.uint(UInt64(value)))
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.uint(UInt64(value)))
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        node.keyedChild(key.stringValue).set(.uint(UInt64(value)))
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { node.keyedChild(key.stringValue).set(.uint(value)) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try node.keyedChild(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.keyedChild(key.stringValue)
        child.makeKeyed()
        // Keys the value's own encoding writes, not property names: kept, `_` or not. (An enum
        // case's unlabeled values are `_0`, `_1` there: left out, `.tag("a")` and `.tag("b")` were
        // one value, and a change between them went unreported.)
        child.holdsData = true
        return KeyedEncodingContainer(FlatKeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.keyedChild(key.stringValue)
        child.makeUnkeyed()
        return FlatUnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        FlatNodeEncoder(node: node.keyedChild("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        FlatNodeEncoder(node: node.keyedChild(key.stringValue), codingPath: codingPath + [key])
    }
}

struct FlatUnkeyedContainer: UnkeyedEncodingContainer {
    let node: FlatNode
    let codingPath: [any CodingKey]
    var count: Int {
        if case .unkeyed(let children) = node.content { return children.count }
        return 0
    }

    // Every primitive has its own method: one left to the generic method below satisfied the
    // protocol's requirement with it, and a primitive's `encode(to:)` asks a single-value
    // container for the same call again, without end (an `Int8` field crashed the journal).
    mutating func encodeNil() throws { node.appendChild().set(.null) }
    mutating func encode(_ value: Bool) throws { node.appendChild().set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.appendChild().set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.appendChild().set(.double(value)) }
    mutating func encode(_ value: Float) throws { node.appendChild().set(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { node.appendChild().set(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { node.appendChild().set(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { node.appendChild().set(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { node.appendChild().set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { node.appendChild().set(.int(value)) }
    mutating func encode(_ value: UInt) throws { node.appendChild().set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { node.appendChild().set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { node.appendChild().set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { node.appendChild().set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { node.appendChild().set(.uint(value)) }
    mutating func encode(_ value: some Encodable) throws {
        try node.appendChild().encode(value, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let child = node.appendChild()
        child.makeKeyed()
        child.holdsData = true  // keys the value's own encoding writes (see `FlatKeyedContainer`)
        return KeyedEncodingContainer(FlatKeyedContainer<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = node.appendChild()
        child.makeUnkeyed()
        return FlatUnkeyedContainer(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        FlatNodeEncoder(node: node.appendChild(), codingPath: codingPath)
    }
}

struct FlatSingleContainer: SingleValueEncodingContainer {
    let node: FlatNode
    let codingPath: [any CodingKey]

    // Every primitive has its own method (see `FlatUnkeyedContainer`).
    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(.double(value)) }
    mutating func encode(_ value: Float) throws { node.set(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { node.set(.int(value)) }
    mutating func encode(_ value: UInt) throws { node.set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { node.set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { node.set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { node.set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { node.set(.uint(value)) }
    mutating func encode(_ value: some Encodable) throws {
        try node.encode(value, codingPath: codingPath)
    }
}
