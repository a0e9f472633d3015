import Archive

// The spellings of Substances that are not the canonical ones (docs/decisions.md, "One spelling per
// operation"), each deprecated with a fix-it to the canonical spelling.

extension Substance {
    /// Writes the committed state to the archive now, as ``archiveNow()``, and calls `completion`
    /// once it is stored (with nil) or could not be (with the problem, also reported through the
    /// bus's diagnostics).
    ///
    /// - Parameter completion: called on the archive's thread.
    @available(*, deprecated, message: "try await archiveNowAndWait(), which throws the problem")
    public func archiveNow(completion: (@Sendable (ArchiveProblem?) -> Void)?) {
        archiveNow(then: completion)
    }
}

extension ReactiveSubstance {
    /// The earlier name of ``ActionMixer``: `MixerDefinitions.ActionBody` is the closure spelling's
    /// body, which also takes the substance.
    @available(*, deprecated, renamed: "ActionMixer")
    public typealias ActionBody<A: FlaskAction> = ActionMixer<A>
}
