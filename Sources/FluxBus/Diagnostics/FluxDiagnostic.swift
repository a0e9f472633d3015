/// A report of misuse or bad input, delivered through ``Flux/diagnostics``.
///
/// Diagnostics never carry payload or state *values*, only names, keys and types, so the default
/// handler can print them without leaking user data.
public struct FluxDiagnostic: Sendable, CustomStringConvertible, Equatable {
    /// What went wrong. Codes are stable; new ones may be added. Each module defines the codes of
    /// what it reports (`Substances` and `Reactors` extend this type with theirs).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A lock was released again after an explicit release.
        public static let lockReleasedTwice = Code("lock-released-twice")
        /// A lock has been held longer than expected.
        public static let lockHeldLong = Code("lock-held-long")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "[Flask \(code)] \(message)" }
}
