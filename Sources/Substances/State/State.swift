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
/// reported as changes, nor recorded by a ``MixJournal``. Values that are objects go in a
/// ``FlaskRef``; nested dictionaries in a ``FlaskDictRef``.
public protocol State: Codable, Sendable {
    init()

    /// The keys whose values a ``MixJournal`` never records, nor a diff printer prints (a token, a
    /// password): their changes are recorded as redacted. A key covers the keys below it. None by
    /// default; `_`-prefixed properties are never recorded either way.
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
