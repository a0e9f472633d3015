import FluxBus

/// The global mixers a ``ReactiveSubstance`` can react to.
///
/// ```swift
/// enum EnvMixers: SubstanceMixer { case Login, Logout }
/// ```
///
/// Mixer names are scoped by their enumeration, so two enumerations may share case names.
/// Enumerations without associated values are `Hashable` without saying so.
public protocol SubstanceMixer: Hashable, Sendable, FluxPayloadSecrets {
    /// The mixer's name within its enumeration.
    var mixerName: String { get }
    /// The payload keys whose values no text the package writes ever shows, for every mixer of
    /// the enumeration (`["password"]`): a journal records them as redacted, at any depth as a
    /// state's secret keys (``State/secretKeys``). None by default.
    static var secretPayloadKeys: Set<String> { get }
}

extension SubstanceMixer {
    /// No secret payload keys.
    public static var secretPayloadKeys: Set<String> { [] }

    /// The case's name; for a case with associated values, the name and its values
    /// (`login(password: "…")`), which reports cut at the `(`.
    public var mixerName: String { MixerValues.name(of: self) }

    /// The name the bus knows this mixer by: ``mixerName``, scoped by the enumeration, so that
    /// `AuthMixers.login` and `ShopMixers.login` never collide.
    public var busName: FluxMixerName { FluxMixerName(mixerName, domain: Self.self) }
}

extension SubstanceMixer where Self: RawRepresentable, RawValue == String {
    /// The case's raw value.
    public var mixerName: String { rawValue }
}

/// The mixers of a ``ReactiveSubstance`` that reacts to typed actions only: an enumeration without
/// cases, so that no dummy case need be invented.
///
/// ```swift
/// struct Rename: FlaskAction {
///     let title: String
/// }
///
/// let document = ReactiveSubstance<DocumentState, NoMixers>(name: "document") { define in
///     define(Rename.self) { document, rename, react, _ in
///         document.prop.title = rename.title
///         react()
///     }
/// }
/// ```
public enum NoMixers: SubstanceMixer {}
