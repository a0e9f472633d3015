/// Values whose sub-keys are reported as dotted keys even though their shape is not known from
/// the type: dictionaries.
protocol KeyedByContent {}
extension FlaskDictRef: KeyedByContent {}
extension Dictionary: KeyedByContent where Key == String {}
extension Optional: KeyedByContent where Wrapped: KeyedByContent {}

/// How the reduction reads and compares one stored property, made once per state type.
struct ValueTraits {
    enum Comparison {
        /// Different bits mean a different value (integers, booleans, object identity).
        case bits
        /// Different bits may still be equal values: ask `==`.
        case equatable((UnsafeRawPointer, UnsafeRawPointer) -> Bool)
        /// Compare, and report sub-keys, through the Codable flattening.
        case expand
    }

    let size: Int
    let comparison: Comparison
    let read: (UnsafeRawPointer) -> Any
    let flatten: (UnsafeRawPointer) -> FlatValue

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
        } else if let equatable = T.self as? any Equatable.Type {
            comparison = .equatable(equality(equatable))
        } else {
            comparison = .expand
        }
        return ValueTraits(
            size: MemoryLayout<T>.size,
            comparison: comparison,
            read: { $0.assumingMemoryBound(to: T.self).pointee },
            flatten: { pointer in
                let value = pointer.assumingMemoryBound(to: T.self).pointee
                guard let encodable = value as? any Encodable else { return .null }
                return FlatEncoder.flatten(encodable)
            })
    }

    private static func sameReference<R: ObjectReferencing>(_ type: R.Type) -> (UnsafeRawPointer, UnsafeRawPointer) ->
        Bool
    {
        {
            $0.assumingMemoryBound(to: R.self).pointee.referencedObject
                === $1.assumingMemoryBound(to: R.self).pointee.referencedObject
        }
    }

    private static func equality<E: Equatable>(_ type: E.Type) -> (UnsafeRawPointer, UnsafeRawPointer) -> Bool {
        { $0.assumingMemoryBound(to: E.self).pointee == $1.assumingMemoryBound(to: E.self).pointee }
    }
}

/// Whether `size` bytes at two addresses are identical.
///
/// Whole words are compared without a branch per word (the differences are or-ed together), which
/// is cheaper for the few words of a property or a group of properties than stopping at the first.
/// One or two words (an `Int`, a `Double`, a reference, a `String`: most properties) are compared
/// on their own, without the loops' setup.
@inline(__always)
func sameBits(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ size: Int) -> Bool {
    if size <= 16 {
        if size == 8 { return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self) }
        if size == 16 {
            return a.loadUnaligned(as: UInt64.self) ^ b.loadUnaligned(as: UInt64.self)
                | a.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == 0
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
/// whose bits differ between `a` and `b`, or nil. The difference lies within the eight bytes at the
/// offset returned.
@inline(__always)
func firstDifference(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, from start: Int, to end: Int) -> Int? {
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
