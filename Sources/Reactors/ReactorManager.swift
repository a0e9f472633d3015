import FluxBus
import Substances
import Synchronization

/// Creates reactors attached to owners, finds and removes them, and disposes of those whose owner
/// has gone.
///
/// ```swift
/// let reactor = ReactorManager.shared.reactor(attachedTo: owner, mixing: [substance])
/// ReactorManager.shared.reactors(of: owner)   // [reactor]
/// ReactorManager.shared.detach(from: owner)
/// ```
public final class ReactorManager: Sendable {
    /// The manager the `Flask` facade uses.
    public static let shared = ReactorManager()

    private let attached = LockedValue<[ObjectIdentifier: any AnyReactor]>([:])

    public init() {}

    /// Creates a reactor for `owner` bound to `substances`, and keeps it until its owner goes away
    /// or it is detached.
    public func reactor<Owner: AnyObject>(
        attachedTo owner: Owner, mixing substances: [any AnySubstance], delivery: ReactionDelivery = .bus
    ) -> Reactor<Owner> {
        let reactor = Reactor(owner: owner, substances: substances, delivery: delivery, manager: self)
        attached.withLock { $0[ObjectIdentifier(reactor)] = reactor }
        return reactor
    }

    /// Every attached reactor whose owner is alive. Disposes of the others first.
    public var reactors: [any AnyReactor] {
        purge()
        return attached.withLock { Array($0.values) }
    }

    /// The reactors attached to `owner`.
    public func reactors(of owner: AnyObject) -> [any AnyReactor] {
        attached.withLock { $0.values.filter { $0.anyOwner === owner } }
    }

    /// Detaches every reactor of `owner`. Returns how many there were.
    @discardableResult
    public func detach(from owner: AnyObject) -> Int {
        let mine = reactors(of: owner)
        for reactor in mine { reactor.detach() }
        return mine.count
    }

    /// Detaches every reactor whose owner has gone. Returns how many.
    @discardableResult
    public func purge() -> Int {
        let gone = attached.withLock { $0.values.filter { $0.anyOwner == nil } }
        for reactor in gone { reactor.detach() }
        return gone.count
    }

    /// Detaches every reactor (tests, resets).
    public func removeAll() {
        for reactor in attached.withLock({ Array($0.values) }) { reactor.detach() }
    }

    /// The number of attached reactors, alive or awaiting disposal.
    public var count: Int { attached.withLock { $0.count } }

    func remove(_ reactor: any AnyReactor) {
        _ = attached.withLock { $0.removeValue(forKey: ObjectIdentifier(reactor)) }
    }
}
