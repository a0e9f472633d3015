import FlaskAPI
import ServiceLifecycle

/// Writes every pending archive when the service group shuts down gracefully.
///
/// Listed first in the group, it is shut down last (a group shuts its services down in reverse
/// order), once the server has stopped taking requests: nothing commits after its flush.
struct ArchiveFlushService: Service {
    func run() async throws {
        // Suspends until the group shuts down (SIGTERM, SIGINT, or a service that ended).
        try? await gracefulShutdown()
        Archiver.shared.flush()
    }
}
