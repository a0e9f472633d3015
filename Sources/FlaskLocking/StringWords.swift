/// The two words of a `String` value, read in registers; nil on platforms where a `String` is not
/// two words.
///
/// A string of up to 15 UTF-8 bytes is stored in its words, so equal words mean equal text; a
/// longer one's words include the address of its storage. The bus's mixer cache and the
/// reduction plan's key table find names and keys by them without hashing. (Through memory, with
/// `withUnsafeBytes`, the string was spilled to the stack and every caller got a stack protector.)
/// Inlinable: called across the module boundary, it was a call on every reaction's key lookup.
@inlinable @inline(__always)
package func stringWords(_ string: String) -> (UInt64, UInt64)? {
    #if _pointerBitWidth(_64)
        return unsafeBitCast(string, to: (UInt64, UInt64).self)
    #else
        return nil
    #endif
}
