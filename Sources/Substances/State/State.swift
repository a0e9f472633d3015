import FluxBus

/// The value a substance holds: a `Codable`, `Sendable` struct with an empty initializer.
///
/// ```swift
/// struct AppState: State {
///     enum prop: StateProp { case counter, text }
///     var counter = 0
///     var text = ""
/// }
/// ```
///
/// Properties whose name starts with `_` are internal: they are stored and archived but never
/// reported as changes, nor recorded by a `MixJournal` (FlaskTools). Values that are objects go in a
/// ``FlaskRef``; nested dictionaries in a ``FlaskDictRef``.
public protocol State: Codable, Sendable {
    init()

    /// The keys whose values no text the package writes ever shows (a token, a password): a
    /// `MixJournal`'s entries and pages, the diff printer, a `ChangeProbe`'s report, a replay's.
    /// Their changes are recorded as redacted. A key covers the keys below it, and names a field
    /// wherever it lies below its first component, through optionals, array elements and dictionary
    /// values: `"history.password"` covers the `password` of every element of `history`. A
    /// component may be spelled as the property's name or as its coding key (`password` or `pw`
    /// for `case password = "pw"`): both match both. A key no value of the state can have under
    /// either spelling is reported once per bus (`unknown-secret-key`). None by default;
    /// `_`-prefixed properties are never recorded either way.
    ///
    /// ```swift
    /// struct Account: State {
    ///     var user = ""
    ///     var token = ""
    ///     static var secretKeys: Set<String> { ["token"] }
    /// }
    /// ```
    static var secretKeys: Set<String> { get }
}

extension State {
    /// No secret keys.
    public static var secretKeys: Set<String> { [] }
}

extension State {
    /// ``secretKeys`` as the tools apply them, worked out once per state type (by its plan).
    package static var secrets: SecretKeys { ReductionPlan.cached(for: Self.self).secrets }
}
