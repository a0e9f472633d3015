/// A report of misuse or bad input, delivered through ``Flux/diagnostics``.
///
/// Diagnostics never carry payload or state *values*, only names, keys and types, so the default
/// handler can print them without leaking user data.
public struct FluxDiagnostic: Sendable, CustomStringConvertible, Equatable {
    /// What went wrong. Codes are stable; new ones may be added. Each module defines the codes of
    /// what it reports (the modules built on the bus extend this type with theirs).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code as written in reports (`lock-released-twice`).
        public let rawValue: String
        /// A code; a module defines its own as static constants of this type.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A lock was released again after an explicit release.
        public static let lockReleasedTwice = Code("lock-released-twice")
        /// A lock has been held longer than expected.
        public static let lockHeldLong = Code("lock-held-long")
        /// More work items are waiting on a bus than its ``Flux/backlogHighWaterMark``.
        public static let backlog = Code("backlog")
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// What went wrong, in words: names, keys and types, never values.
    public let message: String

    /// A diagnostic of `code`, described by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "[Flask \(code)] \(message)" }
}
