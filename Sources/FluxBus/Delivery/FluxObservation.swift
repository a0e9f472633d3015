/// A registration of an observer on a ``Flux`` bus. Cancel it to stop observing; an observer is
/// also forgotten when its owner is freed.
public struct FluxObservation: Sendable, Hashable {
    let id: UInt64
    let mixer: FluxMixerName
    let bus: Flux

    /// Stops the observation. Takes effect before any item that has not started yet.
    public func cancel() {
        bus.removeObserver(id: id, mixer: mixer)
    }

    /// Whether two registrations are the same one.
    public static func == (lhs: FluxObservation, rhs: FluxObservation) -> Bool {
        lhs.id == rhs.id && lhs.bus === rhs.bus
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(ObjectIdentifier(bus))
    }
}
