import FluxBus

/// A substance observer made of closures: change streams, observation views and change probes
/// each bind one. The substance holds it while bound; `finish` runs when it is freed (the
/// substance went away, or it was unbound).
package final class CommitClosureObserver: SubstanceObserver {
    private let forward: @Sendable (SubstanceChanges) -> Void
    private let finish: (@Sendable () -> Void)?

    package init(_ forward: @escaping @Sendable (SubstanceChanges) -> Void, finish: (@Sendable () -> Void)? = nil) {
        self.forward = forward
        self.finish = finish
    }

    deinit { finish?() }

    package func didCommit(_ commit: Commit) {
        forward(commit.changes)
    }
}
