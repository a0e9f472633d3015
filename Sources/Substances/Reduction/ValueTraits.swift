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
    /// The value as a journal records it, cut to about the given number of bytes of JSON; whether
    /// it was cut. Numbers, booleans and strings are read as what they are, without a cast.
    let journal: (UnsafeRawPointer, Int) -> (value: JournalValue, cut: Bool)

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
            read: { $0.assumingMemoryBound(to: T.self).pointee },
            flatten: { pointer in
                let value = pointer.assumingMemoryBound(to: T.self).pointee
                guard let encodable = value as? any Encodable else { return .null }
                return FlatEncoder.flatten(encodable)
            },
            journal: journal(T.self))
    }

    /// How a value of type `T` is recorded in a journal: chosen once per type, so that recording a
    /// number or a string casts nothing.
    private static func journal<T>(_ type: T.Type) -> (UnsafeRawPointer, Int) -> (value: JournalValue, cut: Bool) {
        if T.self == Int.self { return { pointer, _ in (.int(pointer.load(as: Int.self)), false) } }
        if T.self == Double.self { return { pointer, _ in (.double(pointer.load(as: Double.self)), false) } }
        if T.self == Bool.self { return { pointer, _ in (.bool(pointer.load(as: Bool.self)), false) } }
        if T.self == String.self {
            return { pointer, limit in
                JournalValue.string(pointer.assumingMemoryBound(to: String.self).pointee).bounded(to: limit)
            }
        }
        return { pointer, limit in JournalValue.captured(pointer.assumingMemoryBound(to: T.self).pointee, limit: limit)
        }
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
