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

/// Where a reactor's handler runs.
public enum ReactionDelivery: Sendable, Equatable {
    /// On the bus, right after the commit and before the next work item (the default). A lock taken
    /// in the handler holds back the next mix.
    case bus
    /// On the main queue, in commit order, for owners that are UI. The bus does not wait for the
    /// handler; an exclusive mix's lock stays held until the handler releases it.
    case mainQueue
}
