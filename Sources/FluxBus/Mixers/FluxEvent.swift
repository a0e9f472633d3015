/// What an observer of a named mixer receives when that mixer runs on the bus.
public struct FluxEvent: Sendable {
    /// The mixer that was dispatched.
    public let mixer: FluxMixerName
    /// The payload given with the dispatch, if any.
    public let payload: FluxPayload?
    /// The lock dispatched together with the mixer (an *exclusive* mix, see
    /// ``Flux/lock(withMixer:payload:autorelease:fileID:line:)``). The receiver hands it on so that
    /// whoever finishes the work can release it later.
    public let lock: FluxLock?
    /// The value dispatched with the mixer, in its carrier.
    private let carrier: FluxValueCarrier?

    /// An event of `mixer`, with its payload and, for an exclusive mix, its lock.
    public init(mixer: FluxMixerName, payload: FluxPayload?, lock: FluxLock?) {
        self.init(mixer: mixer, payload: payload, lock: lock, carrier: nil)
    }

    /// An event of `mixer` carrying `value` (a typed action, say), with its payload and, for an
    /// exclusive mix, its lock.
    public init(mixer: FluxMixerName, payload: FluxPayload?, value: any Sendable, lock: FluxLock?) {
        self.init(mixer: mixer, payload: payload, lock: lock, carrier: FluxValueCarrier(value, lock: lock))
    }

    init(mixer: FluxMixerName, payload: FluxPayload?, lock: FluxLock?, carrier: FluxValueCarrier?) {
        self.mixer = mixer
        self.payload = payload
        self.lock = lock
        self.carrier = carrier
    }

    /// The value dispatched with the mixer (``Flux/dispatch(_:payload:value:)``), if any.
    public var value: (any Sendable)? { carrier?.value }

    /// The same event for another mixer and payload: what a middleware's replacement hands on (the
    /// lock and the value stay with it).
    func replacing(mixer: FluxMixerName, payload: FluxPayload?) -> FluxEvent {
        FluxEvent(mixer: mixer, payload: payload, lock: lock, carrier: carrier)
    }
}
