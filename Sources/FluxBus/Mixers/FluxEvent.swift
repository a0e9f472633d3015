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

    /// An event of `mixer`, with its payload and, for an exclusive mix, its lock.
    public init(mixer: FluxMixerName, payload: FluxPayload?, lock: FluxLock?) {
        self.init(mixer: mixer, payload: payload, work: lock, kind: lock == nil ? .mixer : .exclusiveMixer)
    }

    /// An event of `mixer` carrying `value` (a typed action, say), with its payload and, for an
    /// exclusive mix, its lock.
    public init(mixer: FluxMixerName, payload: FluxPayload?, value: any Sendable, lock: FluxLock?) {
        self.init(mixer: mixer, payload: payload, carrying: FluxValueCarrier.carrying(value, lock: lock))
    }

    init(mixer: FluxMixerName, payload: FluxPayload?, carrying carrier: FluxValueCarrier) {
        self.init(mixer: mixer, payload: payload, work: carrier, kind: .valueMixer)
    }

    init(mixer: FluxMixerName, payload: FluxPayload?, work: (any AnyObject & Sendable)?, kind: FluxEventKind) {
        self.mixer = mixer
        self.payload = payload
        self.work = work
        self.kind = kind
    }

    /// The lock dispatched together with the mixer (an *exclusive* mix, see
    /// ``Flux/lock(withMixer:payload:autorelease:fileID:line:)``). The receiver hands it on so that
    /// whoever finishes the work can release it later.
    // Inlinable: a substance reads it through a pointer to the event it borrows, and a call would
    // copy the event (retaining its name, payload and reference) to pass it.
    @inlinable @inline(__always)
    public var lock: FluxLock? {
        switch kind {
        case .exclusiveMixer: unsafeDowncast(work.unsafelyUnwrapped, to: FluxLock.self)
        case .valueMixer: carrier.unsafelyUnwrapped.lock
        default: nil
        }
    }

    /// The value dispatched with the mixer (``Flux/dispatch(_:payload:value:)``), if any.
    public var value: (any Sendable)? { carrier?.value }

    /// The value dispatched with the mixer, if there is one of type `Value`.
    // Inlinable: where `Value` is known, the value is read after one comparison of its carrier's
    // class, without the runtime's dynamic cast.
    @inlinable
    public func value<Value: Sendable>(as type: Value.Type) -> Value? {
        guard kind == .valueMixer, let work else { return nil }
        if ObjectIdentifier(Swift.type(of: work)) == ObjectIdentifier(FluxCarried<Value>.self) {
            return unsafeDowncast(work, to: FluxCarried<Value>.self).carried
        }
        return value as? Value
    }

    /// The carrier of the value dispatched with the mixer, if any.
    @usableFromInline
    var carrier: FluxValueCarrier? {
        kind == .valueMixer ? unsafeDowncast(work.unsafelyUnwrapped, to: FluxValueCarrier.self) : nil
    }

    /// The same event for another mixer and payload: what a middleware's replacement hands on (the
    /// lock and the value stay with it).
    func replacing(mixer: FluxMixerName, payload: FluxPayload?) -> FluxEvent {
        FluxEvent(mixer: mixer, payload: payload, work: work, kind: kind)
    }
}

/// What a bus item (see `FluxItem`) is: one of the three kinds of events observers see (a mixer,
/// an exclusive mixer with its lock, a mixer with a value), or a task of some kind.
@usableFromInline
enum FluxEventKind: UInt8, Sendable {
    case mixer, exclusiveMixer, valueMixer, task, mixTask, resume, upkeep
}
