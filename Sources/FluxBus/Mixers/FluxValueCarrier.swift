/// A value dispatched with a mixer, and the lock of an exclusive mix: one object, so that a queued
/// item still holds one reference.
@usableFromInline
final class FluxValueCarrier: Sendable {
    let value: any Sendable
    @usableFromInline let lock: FluxLock?

    init(_ value: any Sendable, lock: FluxLock?) {
        self.value = value
        self.lock = lock
    }
}
