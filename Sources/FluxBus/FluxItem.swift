/// One unit of work on the bus. Kept small (an enum stored inline in the queue's buffer) so a
/// pending dispatch costs a few dozen bytes and no allocation of its own.
enum FluxItem: Sendable {
    /// A named mixer, delivered to its observers; `lock` is set for an exclusive mix.
    case mixer(FluxMixerName, FluxPayload?, FluxLock?)
    /// A plain task.
    case task(@Sendable () -> Void)
    /// A waiter of ``Flux/flush()``: resumed when reached, or when purged, never lost.
    case resume(CheckedContinuation<Void, Never>)
}
