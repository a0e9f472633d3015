import FlaskLocking

/// The bytes of a state value where it lies (in a substance's slot, in a changes object): what the
/// change reduction compares word by word and reads properties from, by offset, without copying
/// the state or walking it with `Mirror` (scenarios S1, S5 and S8; the design brief's prototype
/// measured this path at 5.9 M dispatches a second against 0.36 with `Mirror`).
///
/// Invariants, written once here: a `StateMemory` is made from a pointer to an initialized state
/// and used only while that state is alive and not moved (the reducer's call, a `withMemory`
/// closure); a property is read at the offset and as the type the state's reduction plan found for
/// it (`FieldLayout`), which debug builds check against the plan's bounds. The scan of a
/// reduction plan's leaves over two states (`StateReducer.compare`) is here too: it walks the
/// plan's leaves in place, as a buffer, and the states' bytes; so are how a property is read and
/// compared there (`ValueTraits`, one per property of a state type) and how arrays are compared
/// element by element where their bytes differ (`ArrayOfEquatable`).
struct StateMemory {
    private let base: UnsafeRawPointer
    /// How many bytes of the value may be read from `base` (checked in debug builds).
    private let size: Int

    @inline(__always)
    init<S>(_ slot: UnsafePointer<S>) {
        base = UnsafeRawPointer(slot)
        size = MemoryLayout<S>.size
    }

    fileprivate init(base: UnsafeRawPointer, size: Int) {
        self.base = base
        self.size = size
    }

    /// Calls `body` with the bytes of `value` (a copy of it, for as long as the call lasts).
    static func withMemory<S, Result>(of value: S, _ body: (StateMemory) -> Result) -> Result {
        withUnsafePointer(to: value) { body(StateMemory($0)) }
    }

    /// A copy of `count` bytes of `value` from `offset` (empty when they lie outside it): how a
    /// type's coding keys are matched with its properties (`CodingKeyAliases`).
    static func bytes<T>(of value: T, from offset: Int, count: Int) -> [UInt8] {
        withUnsafeBytes(of: value) { raw in
            guard offset >= 0, count >= 0, offset + count <= raw.count else { return [] }
            return Array(raw[offset..<(offset + count)])
        }
    }

    /// The bytes from `offset` on (a property's).
    @inline(__always)
    func advanced(by offset: Int) -> StateMemory {
        assert(offset >= 0 && offset <= size, "a state's property lies outside the state")
        return StateMemory(base: base + offset, size: size - offset)
    }

    /// The first `size` bytes here (at most eight) as a word, the rest of it zero: a value that is
    /// its bits (see ``ValueTraits/bitsSize``), kept to be read later (`ChangedBits`).
    @inline(__always)
    func bits(size: Int) -> UInt64 {
        assert(size > 0 && size <= 8 && size <= self.size, "a value's bits read past it")
        if size == 8 { return base.loadUnaligned(as: UInt64.self) }
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: size)) }
        return word
    }

    /// Calls `body` with the bytes of `bits`, made by ``bits(size:)``: the value read from them is
    /// the value the bits were taken from.
    static func withBits<Result>(_ bits: UInt64, _ body: (StateMemory) -> Result) -> Result {
        withUnsafeBytes(of: bits) { body(StateMemory(base: $0.baseAddress.unsafelyUnwrapped, size: 8)) }
    }

    /// A copy of the value of type `T` at the start of these bytes.
    @inline(__always)
    func load<T>(as type: T.Type) -> T {
        assert(MemoryLayout<T>.size <= size, "a state's property read past the state")
        return base.assumingMemoryBound(to: T.self).pointee
    }

    /// Calls `body` with the value of type `T` at the start of these bytes, in place.
    @inline(__always)
    func withValue<T, Result>(as type: T.Type, _ body: (borrowing T) -> Result) -> Result {
        assert(MemoryLayout<T>.size <= size, "a state's property read past the state")
        return body(base.assumingMemoryBound(to: T.self).pointee)
    }

    /// Whether the first `size` bytes here and in `other` are identical.
    ///
    /// Whole words are compared without a branch per word (the differences are or-ed together),
    /// which is cheaper for the few words of a property or a group of properties than stopping at
    /// the first. One or two words (an `Int`, a `Double`, a reference, a `String`: most
    /// properties) are compared on their own, without the loops' setup.
    @inline(__always)
    func sameBits(as other: StateMemory, size: Int) -> Bool {
        assert(size <= self.size && size <= other.size, "compared past a state's end")
        let a = base
        let b = other.base
        if size <= 16 {
            if size == 8 { return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self) }
            if size == 16 {
                // Parenthesized: `^` and `|` share a precedence and group left, so without them
                // this was ((a0 ^ b0) | a1) ^ b1, which hid a difference in the first word behind
                // bits set in the second (a string's characters, a dictionary's count).
                return (a.loadUnaligned(as: UInt64.self) ^ b.loadUnaligned(as: UInt64.self))
                    | (a.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        ^ b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) == 0
            }
        }
        let words = size &>> 3
        var difference: UInt64 = 0
        for word in 0..<words {
            difference |=
                a.loadUnaligned(fromByteOffset: word &<< 3, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: word &<< 3, as: UInt64.self)
        }
        for offset in (words &<< 3)..<size {
            difference |= UInt64(
                a.load(fromByteOffset: offset, as: UInt8.self) ^ b.load(fromByteOffset: offset, as: UInt8.self))
        }
        return difference == 0
    }

    /// The offset of the first word (or, past the last whole word, byte) from `start` up to `end`
    /// whose bits differ here and in `other`, or nil. The difference lies within the eight bytes at
    /// the offset returned.
    @inline(__always)
    func firstDifference(from other: StateMemory, from start: Int, to end: Int) -> Int? {
        assert(end <= size && end <= other.size, "compared past a state's end")
        let a = base
        let b = other.base
        var offset = start
        // Eight words a step, in vector registers: the common case is a long run of unchanged words.
        while offset &+ 64 <= end {
            var difference = SIMD2<UInt64>()
            for lane in stride(from: 0, to: 64, by: 16) {
                difference |=
                    a.loadUnaligned(fromByteOffset: offset &+ lane, as: SIMD2<UInt64>.self)
                    ^ b.loadUnaligned(fromByteOffset: offset &+ lane, as: SIMD2<UInt64>.self)
            }
            if difference[0] | difference[1] != 0 { break }
            offset &+= 64
        }
        while offset &+ 8 <= end {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return offset
            }
            offset &+= 8
        }
        while offset < end {
            if a.load(fromByteOffset: offset, as: UInt8.self) != b.load(fromByteOffset: offset, as: UInt8.self) {
                return offset
            }
            offset &+= 1
        }
        return nil
    }
}

extension StateReducer {
    /// Finds the changed properties of the layout path.
    static func compare(
        _ old: StateMemory, _ new: StateMemory, plan: ReductionPlan, entries: inout PlanEntrySet,
        flat: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        plan.leaves.withUnsafeBufferPointer { leaves in
            for run in plan.runs {
                if run.leaves.count == 1 {
                    // One property (a state of one field, a property between two paddings):
                    // compared directly, without the scan's setup.
                    compareLeaves(
                        old, new, leaves: UnsafeBufferPointer(rebasing: leaves[run.leaves]), plan: plan,
                        entries: &entries, flat: &flat)
                    continue
                }
                // Scan the run for differing bytes; at each, compare the property they belong to
                // (the difference may lie in a later byte of the word, so that property may turn
                // out unchanged), then scan on from its end.
                var position = run.offset
                var leaf = run.leaves.lowerBound
                let end = run.offset + run.length
                while let difference = old.firstDifference(from: new, from: position, to: end) {
                    while leaves[leaf].offset + leaves[leaf].size <= difference { leaf += 1 }
                    compareLeaves(
                        old, new, leaves: UnsafeBufferPointer(rebasing: leaves[leaf..<leaf + 1]), plan: plan,
                        entries: &entries, flat: &flat)
                    position = leaves[leaf].offset + leaves[leaf].size
                    leaf += 1
                }
            }
        }
    }

    /// Finds the changed properties among `leaves`, whose group's bytes differ.
    private static func compareLeaves(
        _ old: StateMemory, _ new: StateMemory, leaves: UnsafeBufferPointer<ReductionPlan.Leaf>,
        plan: ReductionPlan, entries: inout PlanEntrySet, flat: inout [(key: String, old: FlatValue?, new: FlatValue?)]
    ) {
        for leaf in leaves {
            let offset = leaf.offset
            if old.advanced(by: offset).sameBits(as: new.advanced(by: offset), size: leaf.size) { continue }
            switch leaf.kind {
            case .bits:
                break
            case .equatable:
                guard case .equatable(let equal) = plan.entries[Int(leaf.entry)].traits.comparison else { break }
                if equal(old.advanced(by: offset), new.advanced(by: offset)) { continue }
            case .expand:
                break
            }
            // Compared through the flattening (a dictionary, a value not `Equatable`), or reported
            // key by key below it (an optional struct): its keys found by flattening both values.
            if leaf.kind == .expand || leaf.reportsKeysBelow, !appendFlattenedChanges(leaf, old, new, plan, &flat) {
                continue
            }
            entries.append(leaf.entry)
            var parent = leaf.parent
            while parent >= 0, !entries.contains(parent) {
                entries.append(parent)
                parent = Int32(plan.entries[Int(parent)].parent)
            }
        }
    }
}

/// Whether two arrays hold equal elements. Elements with identical bytes are taken as equal without
/// asking `==` (the same references, the same bits: the same value; a NaN kept as it was is no
/// change either).
func equalSkippingIdenticalBytes<Element: Equatable>(_ lhs: [Element], _ rhs: [Element]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBufferPointer { left in
        rhs.withUnsafeBufferPointer { right in
            guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
            if leftBase == rightBase { return true }
            let stride = MemoryLayout<Element>.stride
            let size = MemoryLayout<Element>.size
            let end = left.count &* stride
            let a = StateMemory(base: UnsafeRawPointer(leftBase), size: end)
            let b = StateMemory(base: UnsafeRawPointer(rightBase), size: end)
            var offset = 0
            // Runs of identical bytes are skipped a block at a time. Where bytes differ, the element
            // there is compared by its own bytes (the padding after it holds whatever the memory
            // held before: element copies do not copy it), then with `==` if those differ; the
            // search goes on from the next element.
            while let difference = a.firstDifference(from: b, from: offset, to: end) {
                let index = difference / stride
                let start = index &* stride
                if !a.advanced(by: start).sameBits(as: b.advanced(by: start), size: size), left[index] != right[index] {
                    return false
                }
                offset = start &+ stride
            }
            return true
        }
    }
}

/// Whether two values are the same, as the reduction decides it: identical bytes are; an array of
/// `Equatable` elements is compared where its elements' bytes differ; anything else asks `==`.
/// (Called unspecialized, as the reduction's comparisons are: a key path's change asks it.)
func sameValue<Value: Equatable>(_ old: Value, _ new: Value) -> Bool {
    StateMemory.withMemory(of: old) { a in
        StateMemory.withMemory(of: new) { b in
            if a.sameBits(as: b, size: MemoryLayout<Value>.size) { return true }
            if let array = Value.self as? any ArrayOfEquatable.Type { return array.elementwiseEquality(a, b) }
            return old == new
        }
    }
}

/// Arrays of `Equatable` elements, compared by the reduction element by element where their bytes
/// differ, and not at all where they are identical.
///
/// The reduction compares a property through a closure made once per state type, so `==` on an
/// array runs unspecialized: it copies every element out of both arrays through their type's
/// value witnesses (a retain and a release per reference inside). For a list of 100,000 items
/// with one changed, that was as long as copying the list. Comparing the bytes first finds the
/// one element that differs at the speed of memory; `==` then runs on that element only (and on
/// any whose bytes differ in padding inside the element alone). The padding after an element is
/// not compared.
protocol ArrayOfEquatable {
    /// Compares the arrays at two addresses.
    static var elementwiseEquality: (StateMemory, StateMemory) -> Bool { get }
}

extension Array: ArrayOfEquatable where Element: Equatable {
    static var elementwiseEquality: (StateMemory, StateMemory) -> Bool {
        { a, b in
            a.withValue(as: [Element].self) { left in
                b.withValue(as: [Element].self) { right in equalSkippingIdenticalBytes(left, right) }
            }
        }
    }
}

/// Values whose sub-keys are reported as dotted keys even though their shape is not known from
/// the type: dictionaries.
protocol KeyedByContent {}
extension FlaskDictRef: KeyedByContent {}
extension Dictionary: KeyedByContent where Key == String {}
extension Optional: KeyedByContent where Wrapped: KeyedByContent {}

/// How the reduction reads and compares one stored property, made once per state type.
///
/// `@unchecked Sendable`: immutable; its closures capture only the property's type, and call the
/// conformances found for it when the plan was made (`Equatable`, `Encodable`), from the bus.
struct ValueTraits: @unchecked Sendable {
    enum Comparison {
        /// Different bits mean a different value (integers, booleans, object identity).
        case bits
        /// Different bits may still be equal values: ask `==`.
        case equatable((StateMemory, StateMemory) -> Bool)
        /// Compare, and report sub-keys, through the Codable flattening.
        case expand
    }

    let size: Int
    let comparison: Comparison
    let read: (StateMemory) -> Any
    let flatten: (StateMemory) -> FlatValue
    /// The value as a tool that records changes reads it (see `ChangedValue`): numbers, booleans
    /// and strings as what they are, without a cast.
    let changedValue: (StateMemory) -> ChangedValue
    /// The size of a value of a type whose value is its bits, and nothing else (the standard
    /// integer types, `Double`, `Float`, `Bool`): kept as them, it is read later exactly as it was
    /// (`ChangedBits`). Zero for any other type.
    let bitsSize: Int
    /// For a string-keyed dictionary, its changed entries found entry by entry
    /// (`StringKeyedDictionary`), instead of by flattening both values whole.
    let entryChanges: ((StateMemory, StateMemory, String, inout [FlatChange]) -> Bool?)?

    static func of(_ type: any Any.Type) -> ValueTraits {
        traits(type)
    }

    private static func traits<T>(_ type: T.Type) -> ValueTraits {
        let comparison: Comparison
        if T.self is any KeyedByContent.Type {
            comparison = .expand
        } else if let identity = T.self as? any ObjectReferencing.Type {
            comparison = .equatable(sameReference(identity))
        } else if T.self is any FixedWidthInteger.Type || T.self == Bool.self {
            comparison = .bits
        } else if let array = T.self as? any ArrayOfEquatable.Type {
            comparison = .equatable(array.elementwiseEquality)
        } else if let equatable = T.self as? any Equatable.Type {
            comparison = .equatable(equality(equatable))
        } else {
            comparison = .expand
        }
        return ValueTraits(
            size: MemoryLayout<T>.size,
            comparison: comparison,
            read: { $0.load(as: T.self) },
            flatten: { memory in
                let value = memory.load(as: T.self)
                guard let encodable = value as? any Encodable else { return .null }
                return FlatEncoder.flatten(encodable)
            },
            changedValue: changedValue(T.self),
            bitsSize: isItsBits(T.self) ? MemoryLayout<T>.size : 0,
            entryChanges: (T.self as? any StringKeyedDictionary.Type)?.entryChanges())
    }

    /// How a value of type `T` is read for a tool that records changes: chosen once per type, so
    /// that reading a number or a string casts nothing.
    private static func changedValue<T>(_ type: T.Type) -> (StateMemory) -> ChangedValue {
        if T.self == Int.self { return { .int($0.load(as: Int.self)) } }
        if T.self == Double.self { return { .double($0.load(as: Double.self)) } }
        if T.self == Bool.self { return { .bool($0.load(as: Bool.self)) } }
        if T.self == String.self { return { .string($0.load(as: String.self)) } }
        return { .other($0.load(as: T.self)) }
    }

    /// Whether a value of type `T` is its bits (see ``bitsSize``).
    private static func isItsBits<T>(_ type: T.Type) -> Bool {
        let types: [Any.Type] = [
            Int.self, Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self,
            UInt64.self, Double.self, Float.self, Bool.self,
        ]
        return MemoryLayout<T>.size <= 8 && types.contains { $0 == T.self }
    }

    private static func sameReference<R: ObjectReferencing>(_ type: R.Type) -> (StateMemory, StateMemory) -> Bool {
        { $0.load(as: R.self).referencedObject === $1.load(as: R.self).referencedObject }
    }

    private static func equality<E: Equatable>(_ type: E.Type) -> (StateMemory, StateMemory) -> Bool {
        { $0.load(as: E.self) == $1.load(as: E.self) }
    }
}

/// The bytes of a value of some type that hold its data: every stored property's, found through
/// the type's layout (`FieldLayout`), recursively through structs; the padding between them left
/// out. Two values whose significant bytes are identical are the same value (the same bits in every
/// property); a copy made by a value witness leaves the padding of a struct with references as it
/// found it, so comparing whole values would see differences that are not there.
///
/// A type the runtime cannot describe (an enum, a class) is one range, its whole size: a copy of an
/// enum may leave the bytes its case does not use as they were, and then compares as different,
/// which only sends the value to the exact comparison (the flattening) that the bits were to spare.
struct SignificantBytes {
    /// Byte ranges, sorted and merged.
    private let ranges: [Range<Int>]

    /// The significant bytes of `type`.
    static func of(_ type: any Any.Type) -> SignificantBytes {
        var ranges: [Range<Int>] = []
        collect(type, at: 0, depth: 0, into: &ranges)
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in ranges where !range.isEmpty {
            if let last = merged.last, last.upperBound >= range.lowerBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return SignificantBytes(ranges: merged)
    }

    private static func collect(_ type: any Any.Type, at offset: Int, depth: Int, into ranges: inout [Range<Int>]) {
        if depth < 16, let fields = FieldLayout.storedFields(of: type) {
            let size = sizeOf(type)
            if fields.isEmpty {
                // A struct without stored properties holds nothing; a type the runtime describes
                // with no fields but a size (a builtin) is taken whole.
                if size > 0 { ranges.append(offset..<offset + size) }
                return
            }
            for field in fields {
                if field.isStruct {
                    collect(field.type, at: offset + field.offset, depth: depth + 1, into: &ranges)
                } else {
                    ranges.append(offset + field.offset..<offset + field.offset + sizeOf(field.type))
                }
            }
        } else {
            ranges.append(offset..<offset + sizeOf(type))
        }
    }

    private static func sizeOf(_ type: any Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return size(type)
    }

    /// Whether `a` and `b`, two values of the type, have identical significant bytes.
    @inline(__always)
    func same(_ a: StateMemory, _ b: StateMemory) -> Bool {
        for range in ranges
        where !a.advanced(by: range.lowerBound).sameBits(as: b.advanced(by: range.lowerBound), size: range.count) {
            return false
        }
        return true
    }

    /// Whether two values of type `T` have identical significant bytes.
    @inline(__always)
    func same<T>(_ a: T, _ b: T) -> Bool {
        StateMemory.withMemory(of: a) { a in StateMemory.withMemory(of: b) { b in same(a, b) } }
    }
}

/// Finds a string-keyed dictionary's changed entries with code specialized for the layout of its
/// values rather than for their type: the dictionaries are read as `[String: W]`, `W` a tuple of
/// words of the values' stride (scenario S8d: a lookup and a comparison per entry at the cost of
/// `==` on a `[String: Int]`, where the same code unspecialized for the value type cost five times
/// that).
///
/// Sound because a `[String: V]` is always a native dictionary (a `String` key is not bridged
/// verbatim, so no dictionary of them is lazily backed by an `NSDictionary`), and a native
/// dictionary's storage depends on its value type only through its size, stride and alignment:
/// read with a stand-in of the same stride and no greater alignment, its entries are its entries,
/// its keys hashed with its seed. The stand-in's dictionary only reads (a lookup, an iteration):
/// it never writes, and the storage it shares is freed, when it is, by its own class. The bytes
/// compared are the values' significant bytes (`SignificantBytes`), never their padding.
enum DictionaryWords {
    // The stand-ins: tuples of words, half words and bytes, by count (a tuple of two tuples is laid
    // out as their concatenation).
    typealias Words1 = UInt64
    typealias Words2 = (Words1, Words1)
    typealias Words3 = (Words2, Words1)
    typealias Words4 = (Words2, Words2)
    typealias Words5 = (Words3, Words2)
    typealias Words6 = (Words3, Words3)
    typealias Words7 = (Words4, Words3)
    typealias Words8 = (Words4, Words4)
    typealias Words9 = (Words5, Words4)
    typealias Words10 = (Words5, Words5)
    typealias Words11 = (Words6, Words5)
    typealias Words12 = (Words6, Words6)
    typealias Words13 = (Words7, Words6)
    typealias Words14 = (Words7, Words7)
    typealias Words15 = (Words8, Words7)
    typealias Words16 = (Words8, Words8)
    typealias Halves1 = UInt32
    typealias Halves2 = (Halves1, Halves1)
    typealias Halves3 = (Halves2, Halves1)
    typealias Halves4 = (Halves2, Halves2)
    typealias Halves5 = (Halves3, Halves2)
    typealias Halves6 = (Halves3, Halves3)
    typealias Halves7 = (Halves4, Halves3)
    typealias Halves8 = (Halves4, Halves4)
    typealias Bytes1 = UInt8
    typealias Bytes2 = (Bytes1, Bytes1)
    typealias Bytes3 = (Bytes2, Bytes1)
    typealias Bytes4 = (Bytes2, Bytes2)
    typealias Bytes5 = (Bytes3, Bytes2)
    typealias Bytes6 = (Bytes3, Bytes3)
    typealias Bytes7 = (Bytes4, Bytes3)
    typealias Bytes8 = (Bytes4, Bytes4)
    typealias Bytes9 = (Bytes5, Bytes4)
    typealias Bytes10 = (Bytes5, Bytes5)
    typealias Bytes11 = (Bytes6, Bytes5)
    typealias Bytes12 = (Bytes6, Bytes6)
    typealias Bytes13 = (Bytes7, Bytes6)
    typealias Bytes14 = (Bytes7, Bytes7)
    typealias Bytes15 = (Bytes8, Bytes7)
    typealias Bytes16 = (Bytes8, Bytes8)

    /// The changed-entry finder for dictionaries of `Value`, given the dictionaries' addresses:
    /// specialized for a stand-in of the values' layout where one fits, generic over `Value`
    /// otherwise (a stride over 128 bytes, or not a multiple of the alignment the stand-ins need).
    static func scanner<Value>(
        of value: Value.Type, significant: SignificantBytes
    ) -> (StateMemory, StateMemory) -> [String] {
        standInScanner(of: Value.self, significant: significant) ?? scanner(Value.self, significant)
    }

    /// ``scanner(of:significant:)`` through a stand-in, nil when none fits.
    static func standInScanner<Value>(
        of value: Value.Type, significant: SignificantBytes
    ) -> ((StateMemory, StateMemory) -> [String])? {
        let stride = MemoryLayout<Value>.stride
        let alignment = MemoryLayout<Value>.alignment
        if alignment >= 8, stride % 8 == 0 {
            switch stride / 8 {
            case 1: return scanner(Words1.self, significant)
            case 2: return scanner(Words2.self, significant)
            case 3: return scanner(Words3.self, significant)
            case 4: return scanner(Words4.self, significant)
            case 5: return scanner(Words5.self, significant)
            case 6: return scanner(Words6.self, significant)
            case 7: return scanner(Words7.self, significant)
            case 8: return scanner(Words8.self, significant)
            case 9: return scanner(Words9.self, significant)
            case 10: return scanner(Words10.self, significant)
            case 11: return scanner(Words11.self, significant)
            case 12: return scanner(Words12.self, significant)
            case 13: return scanner(Words13.self, significant)
            case 14: return scanner(Words14.self, significant)
            case 15: return scanner(Words15.self, significant)
            case 16: return scanner(Words16.self, significant)
            default: return nil
            }
        }
        if alignment >= 4, stride % 4 == 0 {
            switch stride / 4 {
            case 1: return scanner(Halves1.self, significant)
            case 2: return scanner(Halves2.self, significant)
            case 3: return scanner(Halves3.self, significant)
            case 4: return scanner(Halves4.self, significant)
            case 5: return scanner(Halves5.self, significant)
            case 6: return scanner(Halves6.self, significant)
            case 7: return scanner(Halves7.self, significant)
            case 8: return scanner(Halves8.self, significant)
            default: return nil
            }
        }
        switch stride {
        case 1: return scanner(Bytes1.self, significant)
        case 2: return scanner(Bytes2.self, significant)
        case 3: return scanner(Bytes3.self, significant)
        case 4: return scanner(Bytes4.self, significant)
        case 5: return scanner(Bytes5.self, significant)
        case 6: return scanner(Bytes6.self, significant)
        case 7: return scanner(Bytes7.self, significant)
        case 8: return scanner(Bytes8.self, significant)
        case 9: return scanner(Bytes9.self, significant)
        case 10: return scanner(Bytes10.self, significant)
        case 11: return scanner(Bytes11.self, significant)
        case 12: return scanner(Bytes12.self, significant)
        case 13: return scanner(Bytes13.self, significant)
        case 14: return scanner(Bytes14.self, significant)
        case 15: return scanner(Bytes15.self, significant)
        case 16: return scanner(Bytes16.self, significant)
        default: return nil
        }
    }

    /// The scan of two dictionaries, at two addresses, read as `[String: Words]`: `Words` a
    /// stand-in, specialized where the switch above names it, or the values' own type.
    private static func scanner<Words>(
        _: Words.Type, _ significant: SignificantBytes
    ) -> (StateMemory, StateMemory) -> [String] {
        { old, new in
            old.withValue(as: [String: Words].self) { old in
                new.withValue(as: [String: Words].self) { new in candidates(copy old, copy new, significant) }
            }
        }
    }

    /// The keys of the entries of `new` that `old` lacks or holds with other significant bytes, and
    /// of those of `old` that `new` lacks.
    static func candidates<Words>(
        _ old: [String: Words], _ new: [String: Words], _ significant: SignificantBytes
    ) -> [String] {
        var candidates: [String] = []
        var found = 0
        for (key, value) in new {
            if let previous = old[key] {
                found &+= 1
                if significant.same(previous, value) { continue }
            }
            candidates.append(key)
        }
        if found < old.count {
            for key in old.keys where new[key] == nil { candidates.append(key) }
        }
        return candidates
    }
}
