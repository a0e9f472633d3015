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
/// reported as changes. Values that are objects go in a ``FlaskRef``; nested dictionaries in a
/// ``FlaskDictRef``.
public protocol State: Codable, Sendable {
    init()
}
