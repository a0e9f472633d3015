/// A node of the tree being built; containers write into it.
final class FlatNode {
    enum Content {
        case empty
        case single(FlatValue)
        case keyed([String: FlatNode])
        case unkeyed([FlatNode])
    }

    var content: Content = .empty
    /// Whether the node holds data keyed by content (a dictionary, or a container a value's own
    /// encoding nested: an enum case's values), whose keys are kept as they are; the keys of any
    /// other keyed node are property names, and `_`-prefixed ones (internal state, which the
    /// reduction ignores) are left out.
    var holdsData = false

    var value: FlatValue {
        switch content {
        case .empty: .null
        case .single(let value): value
        case .keyed(let children) where !holdsData && children.keys.contains(where: { $0.hasPrefix("_") }):
            .keyed(children.filter { !$0.key.hasPrefix("_") }.mapValues(\.value))
        case .keyed(let children): .keyed(children.mapValues(\.value))
        case .unkeyed(let children): .unkeyed(children.map(\.value))
        }
    }

    // The children are taken out of `content` before they change, so that they are changed in
    // place: a copy left in `content` would make each addition copy them all (quadratic).

    func keyedChild(_ key: String) -> FlatNode {
        var children: [String: FlatNode] = [:]
        if case .keyed(let existing) = content {
            content = .empty
            children = existing
        }
        let child: FlatNode
        if let existing = children[key] {
            child = existing
        } else {
            child = FlatNode()
            children[key] = child
        }
        content = .keyed(children)
        return child
    }

    func makeKeyed() {
        if case .keyed = content { return }
        content = .keyed([:])
    }

    func appendChild() -> FlatNode {
        var children: [FlatNode] = []
        if case .unkeyed(let existing) = content {
            content = .empty
            children = existing
        }
        let child = FlatNode()
        children.append(child)
        content = .unkeyed(children)
        return child
    }

    func makeUnkeyed() {
        if case .unkeyed = content { return }
        content = .unkeyed([])
    }

    func set(_ value: FlatValue) { content = .single(value) }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let reference = value as? any ObjectReferencing {
            set(reference.flatValue)
        } else if let dict = value as? FlaskDictRef {
            set(.keyed(dict.storage))
        } else {
            holdsData = value is any KeyedByContent
            try value.encode(to: FlatNodeEncoder(node: self, codingPath: codingPath))
        }
    }
}
