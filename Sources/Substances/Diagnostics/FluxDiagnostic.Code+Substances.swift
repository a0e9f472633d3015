import FluxBus

/// The diagnostics `Substances` reports.
extension FluxDiagnostic.Code {
    /// A mixer case with associated values was defined: dispatches of other values never reach it.
    public static let mixerWithValues = FluxDiagnostic.Code("mixer-with-values")
    /// A mixer returned without calling `react()` or `abort()`; it was aborted.
    public static let mixerUnresolved = FluxDiagnostic.Code("mixer-unresolved")
    /// `react()` or `abort()` was called after the mixer had returned or twice; ignored.
    public static let mixerResolvedLate = FluxDiagnostic.Code("mixer-resolved-late")
    /// `prop` was used outside a transaction, or `state` was read inside one.
    public static let propOutsideTransaction = FluxDiagnostic.Code("prop-outside-transaction")
    /// `state` was read inside a transaction of the same substance (it shows the committed value).
    public static let stateInsideTransaction = FluxDiagnostic.Code("state-inside-transaction")
    /// An archive could not be read; the bytes were kept aside.
    public static let archiveUnreadable = FluxDiagnostic.Code("archive-unreadable")
    /// An archive written by another shape of the state was restored value by value: the values
    /// that did not fit took their defaults (or were left out), listed by coding path; the old
    /// bytes were kept aside.
    public static let archivePartiallyRestored = FluxDiagnostic.Code("archive-partially-restored")
    /// An archive could not be written: reported once when a key's writes start failing; the key
    /// stays pending and is retried (see `Archiver.retryDelays`) until a write succeeds.
    public static let archiveWriteFailed = FluxDiagnostic.Code("archive-write-failed")
    /// A key's archive is written again after ``archiveWriteFailed``: the failure episode is over.
    public static let archiveWriteRecovered = FluxDiagnostic.Code("archive-write-recovered")
    /// A second live substance archives under a key (a name) that another live one already uses.
    public static let archiveKeyInUse = FluxDiagnostic.Code("archive-key-in-use")
    /// A substance's archive is no longer where it owned it (the directory removed or renamed, the
    /// lock file deleted or replaced): reported once; it writes nothing more, and `stored()` throws,
    /// until the archive is restored again.
    public static let archiveOwnershipLost = FluxDiagnostic.Code("archive-ownership-lost")
    /// A secret key (`State.secretKeys`) names no key the state type can have: reported once per
    /// state type, when its first substance is made.
    public static let unknownSecretKey = FluxDiagnostic.Code("unknown-secret-key")
    /// A substance used in a way that cannot work: a mixer or action defined outside
    /// `defineMixers()`, `defineMixers()` called by code other than the substance (a reaction to
    /// its own commit, a main-actor reaction: no body runs), an action that arrived without its
    /// value.
    public static let substanceMisuse = FluxDiagnostic.Code("substance-misuse")
    /// A ``SubstanceHistory`` was given a substance of another bus than its first one's: it does not
    /// record that substance (undo runs on one bus, and must not write another bus's state).
    public static let historyAcrossBuses = FluxDiagnostic.Code("history-across-buses")
}
