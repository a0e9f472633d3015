/// What a reactor's user set: read back by the properties' getters.
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
}
