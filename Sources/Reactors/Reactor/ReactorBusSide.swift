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
    /// Where the reactor is in learning the keys its bus handler asks for.
    var keyLearning = ReactorKeyLearning.off {
        didSet {
            switch keyLearning {
            case .learning: callsUntilWatched = 1
            case .learned: callsUntilWatched = ReactorKeyLearning.learnedCallsPerWatch
            case .off, .gaveUp: callsUntilWatched = 0
            }
        }
    }
    /// In how many calls the bus handler is watched for the keys it asks (1: this one); 0 when it
    /// never is. Read on every call.
    var callsUntilWatched = 0
    /// What the handler asked on its last calls, while learning; what it learned, once learned.
    var knownAsks = KeyAsks()
    /// On how many calls in a row the handler asked for ``knownAsks``, while learning.
    var agreeingCalls = 0
}
