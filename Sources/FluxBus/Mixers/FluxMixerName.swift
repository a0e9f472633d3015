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
/// A name that is only its domain (an empty `name`) is a type's own name: a mixer carrying a
/// value of that type uses it.
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

    /// The name as logs, lock reports and diagnostics write it: the domain and the case name, never
    /// a value (`AuthMixers.login` for `case login(password:)`, `ResetPassword` for a struct).
    ///
    /// A name scoped by a domain is cut at its first `(`: an enumeration case's name holds its
    /// associated values from there, and a structure's its stored properties. The whole name, the
    /// bus's identity of the mixer, is ``name``; write it only where values may be shown.
    public var description: String {
        FluxMixerName.redacted(name, domain: domain.map { "\($0)" })
    }

    /// `name` in `domain` as text, without what follows the first `(` when there is a domain:
    /// see ``description``.
    public static func redacted(_ name: String, domain: String?) -> String {
        guard let domain else { return name }
        let caseName = caseName(of: name, domain: domain)
        return caseName.isEmpty ? domain : "\(domain).\(caseName)"
    }

    /// The part of `name` (scoped by `domain`) that names a case: up to its first `(`, and empty
    /// for a structure's description, which starts with the type's own name.
    public static func caseName(of name: String, domain: String) -> String {
        var caseName = Substring(name)
        if let open = caseName.firstIndex(of: "(") { caseName = caseName[..<open] }
        let typeName = domain.split(separator: ".").last.map(String.init) ?? domain
        return caseName == typeName || caseName == domain ? "" : String(caseName)
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
