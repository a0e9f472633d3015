import FlaskLocking
import FluxBus

/// The `react` or `abort` handed to a mixer: call it (`react()`) to commit or discard the
/// transaction.
///
/// Call it before the mixer returns. A mixer that returns without either is aborted and reported;
/// a call after the mixer has returned is ignored and reported. For work that finishes later,
/// dispatch the mixer with a lock (`Flask.lock(withMixer:)`) and release it when done.
public struct MixerResolution: Sendable {
    // Inlinable, as is the call: a mixer's body is inlined into the `defineMixers()` that defines
    // it, and the two resolutions made for it there then borrow the substance's resolver. Made by
    // an initializer the caller could not see into, each retained it and released it after, at
    // every dispatch (scenario S1).
    @usableFromInline let resolver: MixerResolver
    @usableFromInline let serial: UInt64
    @usableFromInline let commits: Bool

    @inlinable
    init(resolver: MixerResolver, serial: UInt64, commits: Bool) {
        self.resolver = resolver
        self.serial = serial
        self.commits = commits
    }

    /// Resolves the transaction.
    @inlinable
    public func callAsFunction() {
        resolver.resolve(serial: serial, commit: commits)
    }
}

/// Where a reactive substance's running mixer records `react()` or `abort()`.
///
/// An object of its own rather than the substance: the two resolutions handed to every mixer hold
/// it strongly, and a substance is also held weakly (by the bus and by reactors), which puts every
/// retain and release of it on the runtime's slow path (many times what a strong reference costs).
///
/// The resolution state is `BusConfined`, and a call from elsewhere is turned away by
/// `bus.isCurrent` before it reads it; the substance's reference is behind a lock.
@usableFromInline
final class MixerResolver: Sendable {
    private struct Resolution {
        /// Tells a transaction's `react`/`abort` from older ones.
        var serial: UInt64 = 0
        /// True for react, false for abort, nil for neither yet.
        var outcome: Bool?
    }

    private let bus: Flux
    /// The substance's shared weak reference, for messages only; set once, right after the
    /// substance's `init` (which makes it), read when a late `react()` or `abort()` is reported.
    private let reference = LockedValue<SubstanceReference?>(nil)
    private let resolution: BusConfined<Resolution>

    init(bus: Flux) {
        self.bus = bus
        resolution = BusConfined(Resolution(), on: bus, "a mixer's react()/abort()")
    }

    /// Names the substance in reports; called once, by its `init`.
    func name(_ substance: SubstanceReference) {
        reference.withLock { $0 = substance }
    }

    /// Opens a transaction's resolution; the serial tells its `react`/`abort` from older ones.
    func begin() -> UInt64 {
        resolution.value.serial &+= 1
        resolution.value.outcome = nil
        return resolution.value.serial
    }

    /// Closes the resolution when the mixer returns: true for react, false for abort, nil for
    /// neither. Calls after this are late.
    func end() -> Bool? {
        resolution.value.serial &+= 1
        return resolution.value.outcome
    }

    @usableFromInline
    func resolve(serial: UInt64, commit: Bool) {
        guard bus.isCurrent, serial == resolution.value.serial, resolution.value.outcome == nil else {
            bus.report(
                .mixerResolvedLate,
                "\(reference.withLock { $0?.nameInReports } ?? "a substance"): \(commit ? "react()" : "abort()") called after the mixer "
                    + "returned or twice; ignored")
            return
        }
        resolution.value.outcome = commit
    }
}
