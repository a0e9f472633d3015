import FluxBus
import Substances

/// What a reactor's user set: read back by the properties' getters, and made into the routes its
/// substances deliver to.
struct ReactorSettings<Owner: AnyObject> {
    var handler: Reactor<Owner>.Handler?
    var mainActorHandler: Reactor<Owner>.MainActorHandler?
    var actorDelivery: ActorDelivery<Owner>?
    var keys: [String]?
    /// The reactions declared with `Reactor.on(_:_:)`.
    var declared: [DeclaredReaction] = []

    /// The declared reactions as the bus runs them, nil without any.
    var declaredReactions: DeclaredReactions? {
        declared.isEmpty ? nil : DeclaredReactions(declared, handlerKeys: keys)
    }

    /// The keys whose commits the substances deliver to the reactor, nil for every commit: the
    /// declared keys, when nothing else wants every commit; the handler's keys; both together.
    var interest: [String]? {
        if declared.isEmpty { return keys }
        let handles = handler != nil || mainActorHandler != nil || actorDelivery != nil
        if handles && keys == nil { return nil }
        return (keys ?? []) + declared.map(\.key)
    }

    /// The route that runs these settings' reactions for `reactor`'s substances on `bus`: one
    /// route per place they run, combined when they run in several.
    func route(of reactor: Reactor<Owner>, on bus: Flux) -> any SubstanceObserver {
        let declared = declaredReactions
        // With both keys and declared reactions, the substances also deliver the declared keys'
        // commits: the handlers filter those out.
        let filter = keys != nil ? declared : nil
        let onMainQueue = reactor.delivery == .mainQueue
        var routes: [any SubstanceObserver] = []
        if mainActorHandler != nil || (onMainQueue && (handler != nil || declared != nil)) {
            routes.append(
                MainActorRoute(
                    reactor: reactor, handler: mainActorHandler, mainQueueHandler: onMainQueue ? handler : nil,
                    mainQueueDeclared: onMainQueue ? declared : nil, filter: filter))
        }
        if let actorDelivery {
            routes.append(ActorRoute(reactor: reactor, delivery: actorDelivery, filter: filter))
        }
        if !onMainQueue && (handler != nil || declared != nil || routes.isEmpty) {
            // Also without any handler: the route notices an owner gone, and detaches the reactor.
            routes.append(BusRoute(reactor: reactor, bus: bus, handler: handler, declared: declared))
        }
        return routes.count == 1 ? routes[0] : CombinedRoute(routes)
    }
}
