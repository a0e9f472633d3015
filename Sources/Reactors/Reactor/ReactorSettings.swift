/// What a reactor's user set: read back by the properties' getters.
struct ReactorSettings<Owner: AnyObject> {
    var handler: Reactor<Owner>.Handler?
    var mainActorHandler: Reactor<Owner>.MainActorHandler?
    var actorDelivery: ActorDelivery<Owner>?
    var keys: [String]?
    var learnsKeys = true
}
