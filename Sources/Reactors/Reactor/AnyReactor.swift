import FluxBus
import Substances

/// What every reactor is, whatever its owner type.
public protocol AnyReactor: AnyObject, Sendable {
    /// The owner, while it lives.
    var anyOwner: AnyObject? { get }
    /// The substances the reactor is bound to.
    var substances: [any AnySubstance] { get }
    /// Whether the reactor has been detached (explicitly or because its owner went away).
    var isDetached: Bool { get }
    /// Unbinds the reactor from its substances and removes it from its manager.
    func detach()
}
