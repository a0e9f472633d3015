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
    /// The value as a tool that records changes reads it (see `ChangedValue`): numbers, booleans
    /// and strings as what they are, without a cast.
    let changedValue: (UnsafeRawPointer) -> ChangedValue

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
            changedValue: changedValue(T.self))
    }

    /// How a value of type `T` is read for a tool that records changes: chosen once per type, so
    /// that reading a number or a string casts nothing.
    private static func changedValue<T>(_ type: T.Type) -> (UnsafeRawPointer) -> ChangedValue {
        if T.self == Int.self { return { .int($0.load(as: Int.self)) } }
        if T.self == Double.self { return { .double($0.load(as: Double.self)) } }
        if T.self == Bool.self { return { .bool($0.load(as: Bool.self)) } }
        if T.self == String.self { return { .string($0.assumingMemoryBound(to: String.self).pointee) } }
        return { .other($0.assumingMemoryBound(to: T.self).pointee) }
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
