import FluxBus
import Substances

/// A reactor's state as its deliveries read it, on the bus: its handlers, set by exclusive-lane
/// tasks between work items, and its owner as the bus holds it.
struct ReactorBusSide<Owner: AnyObject> {
    var handler: ReactorHandlerBox<Owner>? {
        didSet { unretainedHandler = handler.map(Unmanaged.passUnretained) }
    }
    /// The same box, read without a retain: `handler` keeps it alive.
    var unretainedHandler: Unmanaged<ReactorHandlerBox<Owner>>?
    /// The reactions declared on the reactor, nil without any.
    var declared: DeclaredReactions? {
        didSet { unretainedDeclared = declared.map(Unmanaged.passUnretained) }
    }
    /// The same, read without a retain: `declared` keeps it alive.
    var unretainedDeclared: Unmanaged<DeclaredReactions>?
    var mainActorHandler: Reactor<Owner>.MainActorHandler? {
        didSet { deliversElsewhere = mainActorHandler != nil || actorDelivery != nil }
    }
    var actorDelivery: ActorDelivery<Owner>? {
        didSet { deliversElsewhere = mainActorHandler != nil || actorDelivery != nil }
    }
    /// Whether reactions also run off the bus (on the main actor or another actor).
    private(set) var deliversElsewhere = false
    /// The owner as the bus holds it (see `FluxOwnerHolds`).
    var heldOwner = FluxHeldOwner()
}
