import FluxBus
import Substances

/// The routes of a reactor whose reactions run in several places at once (a main-actor handler and
/// a bus handler, say), bound as one: each gets every commit, in order (the ones that send the
/// reaction away first, so that the bus's handlers do not delay them).
final class CombinedRoute: SubstanceObserver {
    private let routes: [any SubstanceObserver]

    init(_ routes: [any SubstanceObserver]) {
        self.routes = routes
    }

    var countsAsReactor: Bool { true }

    func didCommit(_ commit: Commit) {
        for route in routes { route.didCommit(commit) }
    }
}
