import FlaskLocking

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
    @usableFromInline let work: (any AnyObject & Sendable)?
    @usableFromInline let kind: FluxEventKind
    /// Where the mix was dispatched from (for a task queued as a mix, where it was queued), when
    /// the dispatch said.
    public let origin: FluxOrigin?

    /// An event of `mixer`, with its payload and, for an exclusive mix, its lock.
    public init(mixer: FluxMixerName, payload: FluxPayload?, lock: FluxLock?, origin: FluxOrigin? = nil) {
        self.init(
            mixer: mixer, payload: payload, work: lock, kind: lock == nil ? .mixer : .exclusiveMixer, origin: origin)
    }

    /// An event of `mixer` carrying `value` (a typed action, say), with its payload and, for an
    /// exclusive mix, its lock.
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

    /// The lock dispatched together with the mixer (an *exclusive* mix, see
    /// ``Flux/lock(withMixer:payload:autorelease:fileID:line:function:)``). The receiver hands it on so that
    /// whoever finishes the work can release it later.
    // Inlinable: a receiver reads it through a pointer to the event it borrows, and a call would
    // copy the event (retaining its name, payload and reference) to pass it.
    @inlinable @inline(__always)
    public var lock: FluxLock? {
        switch kind {
        case .exclusiveMixer: uncheckedCast(uncheckedUnwrap(work), to: FluxLock.self)
        case .valueMixer: uncheckedUnwrap(carrier).lock
        default: nil
        }
    }

    /// The value dispatched with the mixer (``Flux/dispatch(_:payload:value:fileID:line:function:)``), if any.
    public var value: (any Sendable)? { carrier?.value }

    /// The value dispatched with the mixer, if there is one of type `Value`.
    // Inlined: where `Value` is known, the value is read after one comparison of types, without
    // the runtime's dynamic cast; and a receiver reads it through a pointer to the event it
    // borrows, which a call would copy (retaining its name, payload and reference).
    @inlinable @inline(__always)
    public func value<Value: Sendable>(as type: Value.Type) -> Value? {
        let carrier: FluxValueCarrier
        switch kind {
        case .valueMixer:
            carrier = uncheckedCast(uncheckedUnwrap(work), to: FluxValueCarrier.self)
        case .emptyValueMixer:
            guard let kept = keptCarrier else { return nil }
            return kept.withObject { kept in
                kept.valueType == ObjectIdentifier(Value.self)
                    ? uncheckedCast(kept, to: FluxCarried<Value>.self).carried : kept.value(as: Value.self)
            }
        default:
            return nil
        }
        guard carrier.valueType == ObjectIdentifier(Value.self) else { return carrier.value(as: Value.self) }
        return uncheckedCast(carrier, to: FluxCarried<Value>.self).carried
    }

    /// The carrier of the value dispatched with the mixer, if any: its own, or for a value without
    /// bytes, the one kept for the mixer's type (see ``FluxEmptyValues``).
    @usableFromInline
    var carrier: FluxValueCarrier? {
        switch kind {
        case .valueMixer: uncheckedCast(uncheckedUnwrap(work), to: FluxValueCarrier.self)
        case .emptyValueMixer: keptCarrier?.withObject { $0 }
        default: nil
        }
    }

    /// The carrier kept for the mixer's type, for an event of kind `emptyValueMixer`. (Inlined, as
    /// ``lock`` is: read through a pointer, a call would copy the event.)
    @inlinable @inline(__always)
    var keptCarrier: Unretained<FluxValueCarrier>? {
        guard let domain = mixer.domain else { return nil }
        return FluxEmptyValues.carrier(of: ObjectIdentifier(domain))
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
