/// The storage of ``BigArray``: a tree of nodes never changed once made, 32 elements to a leaf and
/// 32 children to a branch, every leaf full but the last. An element's index, read five bits at a
/// time from the top, is its path. A write copies the nodes on that path and shares every other
/// node with the array it was copied from; since the shape depends on the count alone, two arrays
/// of one count compare node by node, skipping the nodes they share.
///
/// Nodes are not generic (a leaf holds its elements as an `[Element]` in an existential): the
/// reduction compares states through code that is not specialized for their types, and a walk
/// over generic nodes there paid a metadata lookup per node. Here the walk compares references,
/// and only the leaves found different are opened as `[Element]`.
final class VectorTrieNode: Sendable {
    /// A leaf's elements, an `[Element]` (nil in a branch).
    let elements: (any Sendable)?
    /// A branch's children (empty in a leaf).
    let children: [VectorTrieNode]

    init<Element: Sendable>(elements: [Element]) {
        self.elements = elements
        self.children = []
    }

    init(children: [VectorTrieNode]) {
        self.elements = nil
        self.children = children
    }

    static let empty = VectorTrieNode(children: [])
}

/// Operations on ``VectorTrieNode`` trees. `shift` is the height of a node times five: 0 for a
/// leaf.
enum VectorTrie {
    static let width = 32

    @inline(__always)
    static func digit(_ index: Int, _ shift: Int) -> Int { (index &>> shift) & 31 }

    /// A leaf's elements.
    @inline(__always)
    static func elements<Element>(of leaf: VectorTrieNode, as type: Element.Type) -> [Element] {
        guard let elements = leaf.elements as? [Element] else { preconditionFailure("a BigArray leaf of another type") }
        return elements
    }

    /// The leaf that holds `index`.
    static func leaf(_ root: VectorTrieNode, _ index: Int, shift: Int) -> VectorTrieNode {
        var node = root
        var shift = shift
        while shift > 0 {
            node = node.children[digit(index, shift)]
            shift -= 5
        }
        return node
    }

    /// `node` with the element at `index` replaced.
    static func replacing<Element: Sendable>(
        _ node: VectorTrieNode, _ index: Int, with element: Element, shift: Int
    ) -> VectorTrieNode {
        if shift == 0 {
            var elements = elements(of: node, as: Element.self)
            elements[index & 31] = element
            return VectorTrieNode(elements: elements)
        }
        var children = node.children
        let digit = digit(index, shift)
        children[digit] = replacing(children[digit], index, with: element, shift: shift - 5)
        return VectorTrieNode(children: children)
    }

    /// The root, and its shift, after `element` is appended to an array of `count` elements.
    static func appending<Element: Sendable>(
        _ root: VectorTrieNode, _ element: Element, count: Int, shift: Int
    ) -> (root: VectorTrieNode, shift: Int) {
        if count == 0 { return (VectorTrieNode(elements: [element]), 0) }
        if count == width &<< shift {
            // Full: a new root above, with the old one and a path to the new element.
            return (VectorTrieNode(children: [root, path(to: element, shift: shift)]), shift + 5)
        }
        return (appending(root, element, index: count, shift: shift), shift)
    }

    private static func appending<Element: Sendable>(
        _ node: VectorTrieNode, _ element: Element, index: Int, shift: Int
    ) -> VectorTrieNode {
        if shift == 0 { return VectorTrieNode(elements: elements(of: node, as: Element.self) + [element]) }
        var children = node.children
        let digit = digit(index, shift)
        if digit < children.count {
            children[digit] = appending(children[digit], element, index: index, shift: shift - 5)
        } else {
            children.append(path(to: element, shift: shift - 5))
        }
        return VectorTrieNode(children: children)
    }

    /// A node of height `shift` holding only `element`.
    private static func path<Element: Sendable>(to element: Element, shift: Int) -> VectorTrieNode {
        shift == 0
            ? VectorTrieNode(elements: [element]) : VectorTrieNode(children: [path(to: element, shift: shift - 5)])
    }

    /// The root, and its shift, after the last of `count` elements is removed.
    static func removingLast<Element: Sendable>(
        _ root: VectorTrieNode, count: Int, shift: Int, of type: Element.Type
    ) -> (root: VectorTrieNode, shift: Int) {
        guard count > 1 else { return (.empty, 0) }
        var root = removingLast(root, index: count - 1, shift: shift, of: Element.self) ?? .empty
        var shift = shift
        // A root with one child is that child: the tree is as low as its count needs.
        while shift > 0, root.children.count == 1 {
            root = root.children[0]
            shift -= 5
        }
        return (root, shift)
    }

    private static func removingLast<Element: Sendable>(
        _ node: VectorTrieNode, index: Int, shift: Int, of type: Element.Type
    ) -> VectorTrieNode? {
        if shift == 0 {
            let elements = elements(of: node, as: Element.self)
            return elements.count == 1 ? nil : VectorTrieNode(elements: Array(elements.dropLast()))
        }
        var children = node.children
        let digit = digit(index, shift)
        if let child = removingLast(children[digit], index: index, shift: shift - 5, of: Element.self) {
            children[digit] = child
        } else {
            children.removeLast()
        }
        return children.isEmpty ? nil : VectorTrieNode(children: children)
    }

    /// A tree of `elements`, built bottom up: leaves of 32, then branches of 32 until one is left.
    static func build<Element: Sendable>(_ elements: [Element]) -> (root: VectorTrieNode, shift: Int) {
        if elements.isEmpty { return (.empty, 0) }
        var level = stride(from: 0, to: elements.count, by: width).map {
            VectorTrieNode(elements: Array(elements[$0..<min($0 + width, elements.count)]))
        }
        var shift = 0
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: width).map {
                VectorTrieNode(children: Array(level[$0..<min($0 + width, level.count)]))
            }
            shift += 5
        }
        return (level[0], shift)
    }

    /// Calls `body` with every leaf below `node`, in order.
    static func forEachLeaf(_ node: VectorTrieNode, _ body: (VectorTrieNode) throws -> Void) rethrows {
        if node.elements != nil {
            try body(node)
        } else {
            for child in node.children { try forEachLeaf(child, body) }
        }
    }

    /// Whether two trees of one shape hold equal elements: shared nodes are skipped, and leaves
    /// that differ are compared element by element.
    static func equal<Element: Equatable>(_ a: VectorTrieNode, _ b: VectorTrieNode, of type: Element.Type) -> Bool {
        if a === b { return true }
        if a.elements != nil || b.elements != nil {
            guard a.elements != nil, b.elements != nil else { return false }
            return elements(of: a, as: Element.self) == elements(of: b, as: Element.self)
        }
        guard a.children.count == b.children.count else { return false }
        for index in a.children.indices where !equal(a.children[index], b.children[index], of: Element.self) {
            return false
        }
        return true
    }
}
