import FluxBus

/// The diagnostics `Reactors` reports.
extension FluxDiagnostic.Code {
    /// A reaction asked for a key that the state type does not have.
    public static let unknownKey = FluxDiagnostic.Code("unknown-key")
    /// A chain reaction was dropped without `react()` or `abort()`; it was aborted.
    public static let chainUnresolved = FluxDiagnostic.Code("chain-unresolved")
    /// A chain reaction was resolved twice or extended after being resolved.
    public static let chainResolvedTwice = FluxDiagnostic.Code("chain-resolved-twice")
    /// A chain reaction was given a substance of another bus; the chain changes nothing.
    public static let chainAcrossBuses = FluxDiagnostic.Code("chain-across-buses")
    /// A reactor misuse: no reactor, several reactors, detach of an unknown owner.
    public static let reactorMisuse = FluxDiagnostic.Code("reactor-misuse")
}
