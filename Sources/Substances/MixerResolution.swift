/// The `react` or `abort` handed to a mixer: call it (`react()`) to commit or discard the
/// transaction.
///
/// Call it before the mixer returns. A mixer that returns without either is aborted and reported;
/// a call after the mixer has returned is ignored and reported. For work that finishes later,
/// dispatch the mixer with a lock (`Flask.lock(withMixer:)`) and release it when done.
public struct MixerResolution: Sendable {
    let transaction: any MixerTransaction
    let serial: UInt64
    let commits: Bool

    /// Resolves the transaction.
    public func callAsFunction() {
        transaction.resolve(serial: serial, commit: commits)
    }
}

/// A substance running a mixer: receives `react()`/`abort()`.
protocol MixerTransaction: AnyObject, Sendable {
    func resolve(serial: UInt64, commit: Bool)
}
