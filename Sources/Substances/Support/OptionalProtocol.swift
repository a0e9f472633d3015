/// An `Optional` of any wrapped type, seen through `Any`: what lets a value read untyped be
/// unwrapped.
protocol OptionalProtocol {
    var wrapped: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrapped: Any? {
        switch self {
        case .some(let value): value
        case .none: nil
        }
    }
}

/// Turns an `Any` holding an `Optional` into the wrapped value or nil.
func unwrap(_ value: Any) -> Any? {
    if let optional = value as? any OptionalProtocol { return optional.wrapped.flatMap(unwrap) }
    return value
}
