/// A report of misuse or bad input, delivered through ``Flux/diagnostics``.
///
/// Diagnostics never carry payload or state *values*, only names, keys and types, so the default
/// handler can print them without leaking user data.
public struct FluxDiagnostic: Sendable, CustomStringConvertible, Equatable {
    /// What went wrong. Codes are stable; new ones may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A lock was released again after an explicit release.
        public static let lockReleasedTwice = Code("lock-released-twice")
        /// A mixer case with associated values was defined: dispatches of other values never reach it.
        public static let mixerWithValues = Code("mixer-with-values")
        /// A mixer returned without calling `react()` or `abort()`; it was aborted.
        public static let mixerUnresolved = Code("mixer-unresolved")
        /// `react()` or `abort()` was called after the mixer had returned or twice; ignored.
        public static let mixerResolvedLate = Code("mixer-resolved-late")
        /// `prop` was used outside a transaction, or `state` was read inside one.
        public static let propOutsideTransaction = Code("prop-outside-transaction")
        /// `state` was read inside a transaction of the same substance (it shows the committed value).
        public static let stateInsideTransaction = Code("state-inside-transaction")
        /// A reaction asked for a key that the state type does not have.
        public static let unknownKey = Code("unknown-key")
        /// A chain reaction was dropped without `react()` or `abort()`; it was aborted.
        public static let chainUnresolved = Code("chain-unresolved")
        /// A chain reaction was resolved twice or extended after being resolved.
        public static let chainResolvedTwice = Code("chain-resolved-twice")
        /// A chain reaction was given a substance of another bus; the chain changes nothing.
        public static let chainAcrossBuses = Code("chain-across-buses")
        /// A reactor misuse: no reactor, several reactors, detach of an unknown owner.
        public static let reactorMisuse = Code("reactor-misuse")
        /// An archive could not be read; the bytes were kept aside.
        public static let archiveUnreadable = Code("archive-unreadable")
        /// An archive could not be written.
        public static let archiveWriteFailed = Code("archive-write-failed")
        /// A second live substance archives under a key (a name) that another live one already uses.
        public static let archiveKeyInUse = Code("archive-key-in-use")
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
