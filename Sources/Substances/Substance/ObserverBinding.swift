import FluxBus

/// A bound observer in a box of its own: a delivery can then call it borrowed, without retaining
/// and releasing it (the list of bound observers changes only between work items).
final class ObserverBinding: Sendable {
    let observer: any SubstanceObserver
    /// Whether the observer keeps the changes it receives on the bus (a reactor: its reactions
    /// cannot leave their handler). Others may keep them or hand them to another thread, so their
    /// changes are marked escaped before they see them.
    let keepsChangesOnBus: Bool

    init(_ observer: any SubstanceObserver) {
        self.observer = observer
        self.keepsChangesOnBus = observer is any ChangesStayOnBus
    }
}
