// Samples of docs/performance.md, compiled as they appear there.
import FlaskAPI

func watchBacklog(of bus: Flux = Flask.bus, log: @escaping @Sendable (String) -> Void) {
    bus.backlogHighWaterMark = 10_000
    bus.diagnostics = { diagnostic in
        if diagnostic.code == .backlog { log(diagnostic.message) }
    }
}
