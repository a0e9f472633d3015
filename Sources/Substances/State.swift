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

/// The keys of a state, for `reaction.on(AppState.prop.counter)`.
///
/// A plain enumeration works (`enum prop: StateProp { case counter }`: the key is the case name);
/// an enumeration with `String` raw values uses the raw value, which is faster.
public protocol StateProp: Sendable {
    /// The dotted key this case names.
    var key: String { get }
}

extension StateProp {
    public var key: String { String(describing: self) }
}

extension StateProp where Self: RawRepresentable, RawValue == String {
    public var key: String { rawValue }
}

/// The global mixers a ``ReactiveSubstance`` can react to.
///
/// ```swift
/// enum EnvMixers: SubstanceMixer { case Login, Logout }
/// ```
///
/// Mixer names are scoped by their enumeration, so two enumerations may share case names.
/// Enumerations without associated values are `Hashable` without saying so.
public protocol SubstanceMixer: Hashable, Sendable {
    /// The mixer's name within its enumeration.
    var mixerName: String { get }
}

extension SubstanceMixer {
    public var mixerName: String { String(describing: self) }

    /// The name the bus knows this mixer by: ``mixerName``, scoped by the enumeration, so that
    /// `AuthMixers.login` and `ShopMixers.login` never collide.
    public var busName: FluxMixerName { FluxMixerName(mixerName, domain: Self.self) }
}

extension SubstanceMixer where Self: RawRepresentable, RawValue == String {
    public var mixerName: String { rawValue }
}
