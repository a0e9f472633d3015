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
