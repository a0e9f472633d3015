/// What an observer of a named mixer receives when that mixer runs on the bus.
public struct FluxEvent: Sendable {
    /// The mixer that was dispatched.
    public let mixer: FluxMixerName
    /// The payload given with the dispatch, if any.
    public let payload: FluxPayload?
    /// The lock (a `FluxLock`), the value (a `FluxValueCarrier`, which holds the lock too when
    /// there is one) or, in a bus item that is a task, its work (a `FluxWork`), told apart by
    /// `kind`. One reference, so that a bus item is its event (see `FluxItem`): the bus hands
    /// observers and middleware the event it holds, built once when the mixer was dispatched.
    /// Read by kind, without a check, in FluxValueCarrier.swift (``lock``, ``value(as:)``).
    @usableFromInline let work: (any AnyObject & Sendable)?
    /// Where the mix was dispatched from (for a task queued as a mix, where it was queued), when
    /// the dispatch said.
    public let origin: FluxOrigin?
    /// After ``origin``, in the bytes its last literal leaves before the next word: a bus item is
    /// 91 bytes, a 96-byte slot of the lane's chunk (it was 105 and 112 with the kind before).
    @usableFromInline let kind: FluxEventKind

    /// An event of `mixer`, with its payload and, for an exclusive mix, its lock.
    public init(mixer: FluxMixerName, payload: FluxPayload?, lock: FluxLock?, origin: FluxOrigin? = nil) {
        self.init(
            mixer: mixer, payload: payload, work: lock, kind: lock == nil ? .mixer : .exclusiveMixer, origin: origin)
    }

    /// An event of `mixer` carrying `value` (a value of the caller's own type), with its payload
    /// and, for an exclusive mix, its lock.
    public init(
        mixer: FluxMixerName, payload: FluxPayload?, value: any Sendable, lock: FluxLock?, origin: FluxOrigin? = nil
    ) {
        self.init(
            mixer: mixer, payload: payload, carrying: FluxValueCarrier.carrying(value, lock: lock), origin: origin)
    }

    init(mixer: FluxMixerName, payload: FluxPayload?, carrying carrier: FluxValueCarrier, origin: FluxOrigin?) {
        self.init(mixer: mixer, payload: payload, work: carrier, kind: .valueMixer, origin: origin)
    }

    init(
        mixer: FluxMixerName, payload: FluxPayload?, work: (any AnyObject & Sendable)?, kind: FluxEventKind,
        origin: FluxOrigin?
    ) {
        self.mixer = mixer
        self.payload = payload
        self.work = work
        self.kind = kind
        self.origin = origin
    }

    /// The same event for another mixer and payload: what a middleware's replacement hands on (the
    /// lock and the value stay with it).
    func replacing(mixer: FluxMixerName, payload: FluxPayload?) -> FluxEvent {
        // A value without bytes is found by the mixer's domain: under another name, it goes in its
        // carrier.
        if kind == .emptyValueMixer, let carrier {
            return FluxEvent(mixer: mixer, payload: payload, work: carrier, kind: .valueMixer, origin: origin)
        }
        return FluxEvent(mixer: mixer, payload: payload, work: work, kind: kind, origin: origin)
    }
}

/// What a bus item (see `FluxItem`) is: one of the kinds of events observers see (a mixer, an
/// exclusive mixer with its lock, a mixer with a value in a carrier, a mixer with the value
/// without bytes of its domain type, kept in ``FluxEmptyValues``), or a task of some kind.
@usableFromInline
enum FluxEventKind: UInt8, Sendable {
    case mixer, exclusiveMixer, valueMixer, emptyValueMixer, task, mixTask, resume, upkeep
}
