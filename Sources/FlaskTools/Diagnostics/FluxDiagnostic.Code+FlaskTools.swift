import FluxBus

/// The diagnostics `FlaskTools` reports.
extension FluxDiagnostic.Code {
    /// A ``SubstanceHistory`` was given a substance of another bus than its first one's: it does not
    /// record that substance (undo runs on one bus, and must not write another bus's state).
    public static let historyAcrossBuses = FluxDiagnostic.Code("history-across-buses")
}
