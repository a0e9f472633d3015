/// The identity of a named mixer on a ``Flux`` bus.
///
/// A name is a string, optionally scoped by a *domain* type, so that two mixer enumerations with a
/// case of the same name (`AuthMixers.login` and `ShopMixers.login`) never collide. Plain string
/// literals give an unscoped name:
///
/// ```swift
/// let name: FluxMixerName = "refresh"
/// let scoped = FluxMixerName("login", domain: AuthMixers.self)
/// ```
///
/// A name that is only its domain (an empty `name`) is a type's own name: typed actions use it.
public struct FluxMixerName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name inside its domain.
    public let name: String
    /// The type that scopes the name, if any.
    public let domain: (any Any.Type)?

    /// Creates a name scoped by `domain`.
    public init(_ name: String, domain: (any Any.Type)? = nil) {
        self.name = name
        self.domain = domain
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String {
        guard let domain else { return name }
        return name.isEmpty ? "\(domain)" : "\(domain).\(name)"
    }

    /// Whether two names are the same name in the same domain.
    public static func == (lhs: FluxMixerName, rhs: FluxMixerName) -> Bool {
        lhs.name == rhs.name && lhs.domainID == rhs.domainID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(domainID)
    }

    private var domainID: ObjectIdentifier? { domain.map { ObjectIdentifier($0) } }
}
