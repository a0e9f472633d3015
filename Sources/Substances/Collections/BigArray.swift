/// An array for big collections in state: changing, appending or removing the last element costs
/// that element, not the collection.
///
/// A state is a value: a commit keeps the old state beside the new one, so a write to one item of
/// a plain `[Item]` of 100,000 copies all 100,000, and the commit compares the lists to find the
/// change. A `BigArray` shares everything but the path to the element written (a few nodes of 32),
/// and the commit compares only the nodes the two states do not share. Reactions see what a plain
/// array gives them: the property's key (`on("items")`) with its old and new values.
///
/// ```swift
/// struct Todos: State {
///     var items: BigArray<Item> = []
/// }
/// let todos = Substance<Todos>(name: "todos")
/// // in a mixer: one element changed, one added, the rest shared
/// reactor.mix(todos) { todos in
///     todos.prop.items[0].done.toggle()
///     todos.prop.items.append(Item(title: "new"))
/// }.react()
/// ```
///
/// It is `Codable` as a plain array is (an archive written with `[Item]` restores into a
/// `BigArray<Item>`, and back), `Equatable` when its elements are, `Sendable` (as a state's properties are), and a
/// `RandomAccessCollection`, `MutableCollection` and `RangeReplaceableCollection`. Reading an
/// element walks a path of a few nodes: a plain array is faster to read and as fast to change
/// while small. Inserting or removing anywhere but at the end rebuilds the tree, at the cost of
/// the whole array, as a plain array's insertion does (docs/big-collections.md).
public struct BigArray<Element: Sendable> {
    // `_`-prefixed: the reduction plan takes the type as one property, never as a struct to
    // descend into.
    private var _root: VectorTrieNode
    private var _count: Int
    private var _shift: Int

    /// An empty array.
    public init() {
        _root = .empty
        _count = 0
        _shift = 0
    }

    /// The elements of a sequence, in its order.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        let array = Array(elements)
        (_root, _shift) = VectorTrie.build(array)
        _count = array.count
    }

    /// Adds `element` at the end, at the cost of one path.
    public mutating func append(_ element: Element) {
        (_root, _shift) = VectorTrie.appending(_root, element, count: _count, shift: _shift)
        _count += 1
    }

    /// Removes the last element, at the cost of one path, and returns it.
    @discardableResult
    public mutating func removeLast() -> Element {
        precondition(_count > 0, "removeLast() on an empty BigArray")
        let last = self[_count - 1]
        (_root, _shift) = VectorTrie.removingLast(_root, count: _count, shift: _shift, of: Element.self)
        _count -= 1
        return last
    }

    /// The elements as a plain array.
    public var array: [Element] {
        var array: [Element] = []
        array.reserveCapacity(_count)
        VectorTrie.forEachLeaf(_root) { array.append(contentsOf: VectorTrie.elements(of: $0, as: Element.self)) }
        return array
    }

    /// Whether the tree's shape matches its count (tests).
    var isWellFormed: Bool {
        var total = 0
        VectorTrie.forEachLeaf(_root) { total += VectorTrie.elements(of: $0, as: Element.self).count }
        return total == _count && _count <= VectorTrie.width &<< _shift && (_shift == 0 || _count > 1 &<< _shift)
    }
}

extension BigArray: RandomAccessCollection, MutableCollection {
    /// Zero.
    public var startIndex: Int { 0 }

    /// The number of elements.
    public var endIndex: Int { _count }

    /// The element at `index`; setting it copies one path.
    public subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < _count, "BigArray index out of range")
            return VectorTrie.elements(of: VectorTrie.leaf(_root, index, shift: _shift), as: Element.self)[index & 31]
        }
        set {
            precondition(index >= 0 && index < _count, "BigArray index out of range")
            _root = VectorTrie.replacing(_root, index, with: newValue, shift: _shift)
        }
    }

    /// Calls `body` with every element, in order, without a lookup per element.
    public func forEach(_ body: (Element) throws -> Void) rethrows {
        try VectorTrie.forEachLeaf(_root) { try VectorTrie.elements(of: $0, as: Element.self).forEach(body) }
    }
}

extension BigArray: RangeReplaceableCollection {
    /// Replaces the elements in `subrange`. At the end (an append, a removal of the last ones)
    /// it costs the elements added or removed; anywhere else it rebuilds the tree.
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == Element {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= _count, "BigArray range out of bounds")
        if subrange.upperBound == _count && subrange.count <= VectorTrie.width
            && newElements.count <= VectorTrie.width
        {
            for _ in subrange { removeLast() }
            for element in newElements { append(element) }
            return
        }
        var elements = array
        elements.replaceSubrange(subrange, with: newElements)
        self = BigArray(elements)
    }
}

extension BigArray: ExpressibleByArrayLiteral {
    /// An array of the literal's elements.
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension BigArray: Equatable where Element: Equatable {
    /// Whether both hold equal elements in the same order. Costs the nodes they do not share: two
    /// states a few edits apart compare at the cost of those edits.
    public static func == (lhs: BigArray, rhs: BigArray) -> Bool {
        lhs._count == rhs._count && VectorTrie.equal(lhs._root, rhs._root, of: Element.self)
    }
}

extension BigArray: Encodable where Element: Encodable {
    /// Encodes exactly as the plain array of the same elements does.
    public func encode(to encoder: any Encoder) throws {
        try array.encode(to: encoder)
    }
}

extension BigArray: Decodable where Element: Decodable {
    /// Decodes what a plain array of the same type decodes.
    public init(from decoder: any Decoder) throws {
        self.init(try [Element](from: decoder))
    }
}

extension BigArray: CustomStringConvertible {
    /// The elements, as a plain array prints them.
    public var description: String { array.description }
}

extension BigArray: Sendable {}
