import FluxBus
import Substances

/// A reactor's route to the main actor: its ``Reactor/mainActorHandler``, in commit order, through
/// the main actor's mailbox (and, for a reactor made with `.mainQueue` delivery, its handler and
/// declared reactions). The bus does not wait: the reaction is sent, its changes marked escaped
/// by the substance (the route does not keep them on the bus), and its lock claimed until the
/// handler has run.
final class MainActorRoute<Owner: AnyObject>: SubstanceObserver {
    private let reactor: Reactor<Owner>
    private let handler: Reactor<Owner>.MainActorHandler?
    /// The `.mainQueue` delivery's handler and declared reactions, run on the main actor too.
    private let mainQueueHandler: Reactor<Owner>.Handler?
    private let mainQueueDeclared: DeclaredReactions?
    /// The reactor's keys, when its substances also deliver the commits of declared reactions'
    /// keys (see `DeclaredReactions.handlerWants`).
    private let filter: DeclaredReactions?

    init(
        reactor: Reactor<Owner>, handler: Reactor<Owner>.MainActorHandler?,
        mainQueueHandler: Reactor<Owner>.Handler?, mainQueueDeclared: DeclaredReactions?, filter: DeclaredReactions?
    ) {
        self.reactor = reactor
        self.handler = handler
        self.mainQueueHandler = mainQueueHandler
        self.mainQueueDeclared = mainQueueDeclared
        self.filter = filter
    }

    deinit {
        reactor.routeWentAway()
    }

    var countsAsReactor: Bool { true }

    func didCommit(_ commit: Commit) {
        let (changes, lock) = (commit.changes, commit.lock)
        let handlersWant = filter?.handlerWants(changes) ?? true
        let handler = handlersWant ? handler : nil
        let mainQueueHandler = handlersWant ? mainQueueHandler : nil
        guard handler != nil || mainQueueHandler != nil || mainQueueDeclared != nil else { return }
        let sent = reactor.sending(changes, lock)
        let reactor = reactor
        let declared = mainQueueDeclared
        MainActorMailbox.shared.send {
            reactor.receive(sent) { owner, reaction in
                handler?(owner, reaction)
                mainQueueHandler?(owner, reaction)
                declared?.run(retained: owner, reaction.changeSet)
            }
        }
    }
}
