/// An `Optional` of any wrapped type, seen through `Any`: what lets a value read untyped be
/// unwrapped.
package protocol OptionalProtocol {
    var wrapped: Any? { get }
    /// The type it wraps.
    static var wrappedType: any Any.Type { get }
}

/// `type` with its optionals unwrapped (`User??` is `User`).
func unwrappingOptionals(_ type: any Any.Type) -> any Any.Type {
    var type = type
    while let optional = type as? any OptionalProtocol.Type { type = optional.wrappedType }
    return type
}

extension Optional: OptionalProtocol {
    package static var wrappedType: any Any.Type { Wrapped.self }

    package var wrapped: Any? {
        switch self {
        case .some(let value): value
        case .none: nil
        }
    }
}

/// Turns an `Any` holding an `Optional` into the wrapped value or nil.
package func unwrap(_ value: Any) -> Any? {
    if let optional = value as? any OptionalProtocol { return optional.wrapped.flatMap(unwrap) }
    return value
}
