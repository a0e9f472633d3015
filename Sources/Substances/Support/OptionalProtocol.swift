/// An `Optional` of any wrapped type, seen through `Any`: what lets a value read untyped be
/// unwrapped.
package protocol OptionalProtocol {
    var wrapped: Any? { get }
    /// The type it wraps.
    static var wrappedType: any Any.Type { get }
}

/// `type` with its optionals unwrapped (`User??` is `User`).
func unwrappingOptionalType(_ type: any Any.Type) -> any Any.Type {
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

/// `value` with its optionals unwrapped, however many (`User??` holding a user is the user); nil
/// for one that is nil; any other value as itself.
///
/// For a tool that reads state values untyped, as `Any` (a journal, a diff printer, a test
/// probe): `SubstanceChanges` hands its values over unwrapped already, but a value found inside
/// one (an optional in an array, a payload's value) or given by a caller (`String??`) is not.
public func unwrappingOptionals(_ value: Any) -> Any? {
    if let optional = value as? any OptionalProtocol { return optional.wrapped.flatMap(unwrappingOptionals) }
    return value
}
