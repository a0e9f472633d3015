/// What an observer of a named mixer receives when that mixer runs on the bus.
public struct FluxEvent: Sendable {
    /// The mixer that was dispatched.
    public let mixer: FluxMixerName
    /// The payload given with the dispatch, if any.
    public let payload: FluxPayload?
    /// The lock dispatched together with the mixer (an *exclusive* mix, see ``Flux/lock(withMixer:payload:autorelease:)``).
    /// The receiver hands it on so that whoever finishes the work can release it later.
    public let lock: FluxLock?

    public init(mixer: FluxMixerName, payload: FluxPayload?, lock: FluxLock?) {
        self.mixer = mixer
        self.payload = payload
        self.lock = lock
    }
}
