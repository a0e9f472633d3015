/// A state property that holds an object and changes when the *object identity* changes.
///
/// ```swift
/// struct UIState: State {
///     var controller = FlaskRef<AnyObject>(nil)
/// }
/// ```
///
/// Objects are not serialisable: a `FlaskRef` is archived as `nil` and restored empty.
///
/// A `FlaskRef` is `Sendable` whatever the object is: Flask only compares the reference's
/// identity and never touches the object; the object itself is yours to use only where it is safe
/// to use it.
public final class FlaskRef<Object: AnyObject>: Codable, Sendable, CustomStringConvertible {
    /// The object, held as the value it flattens to (`.ref`, or `.null` for none): the reference
    /// may cross threads with the state because Flask never touches the object (see ``FlatValue``).
    private let reference: FlatValue

    /// The referenced object.
    public var object: Object? {
        // Only an `Object` is ever stored; checked, since reading it is the user's, not the bus's.
        reference.referencedObject.map { $0 as! Object }
    }

    /// A reference to `object` (or none).
    public init(_ object: Object?) {
        self.reference = object.map { .reference(to: $0) } ?? .null
    }

    public required init(from decoder: any Decoder) throws {
        self.reference = .null
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }

    public var description: String {
        object.map { "FlaskRef(\(ObjectIdentifier($0)))" } ?? "FlaskRef(nil)"
    }
}

/// A value that stands for the object it references: compared by that object's identity (not the
/// wrapper's), flattened to `.ref`. ``FlaskRef`` and optionals of it.
protocol ObjectReferencing {
    var referencedObject: AnyObject? { get }
    /// What it flattens to: `.ref` of its object, `.null` for none.
    var flatValue: FlatValue { get }
}

extension FlaskRef: ObjectReferencing {
    var referencedObject: AnyObject? { reference.referencedObject }
    /// The value it holds its object as: flattened already.
    var flatValue: FlatValue { reference }
}

extension Optional: ObjectReferencing where Wrapped: ObjectReferencing {
    var referencedObject: AnyObject? { self?.referencedObject }
    var flatValue: FlatValue { self?.flatValue ?? .null }
}

#if canImport(Foundation)
    import Foundation

    /// A ``FlaskRef`` to an `NSObject`, as the seed names it.
    public typealias FlaskNSRef = FlaskRef<NSObject>
#endif
