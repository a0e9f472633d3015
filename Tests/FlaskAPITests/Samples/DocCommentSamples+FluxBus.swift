// The `///` samples of Sources/FluxBus, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a file of this folder).
// Each fragment runs inside a function that declares what it uses; nothing calls them.
import FlaskAPI

private enum FluxBusDocSamples {
    final class Owner: Sendable {
        func refresh(with payload: FluxPayload?) {}
    }

    enum AuthMixers: SubstanceMixer {
        case login
    }

    // Flux
    static func observeAndDispatch() {
        let bus = Flux(label: "my.bus")
        let owner = Owner()
        bus.observe("refresh", owner: owner) { owner, event in
            owner.refresh(with: event.payload)
        }
        bus.dispatch("refresh", payload: ["page": 2])
    }

    // Flux.waitForRoom()
    func importAll(_ lines: AsyncStream<String>, on bus: Flux) async {
        for await line in lines {
            await bus.waitForRoom()
            bus.dispatch("imported", payload: ["line": line])
        }
    }

    // BusConfined
    final class PageCounter: Sendable {
        // Touched only by the bus's work items: checked in debug builds.
        private let pages: BusConfined<Int>

        init(bus: Flux) {
            pages = BusConfined(0, on: bus, "PageCounter.pages")
            bus.observe("refresh", owner: self) { counter, _ in counter.pages.value += 1 }
        }
    }

    // Flux.current
    static func current() {
        Flux.withCurrent(Flux(label: "a test's bus")) {
            // What is made here and given no bus uses this one.
            assert(Flux.current.label == "a test's bus")
        }
    }

    // FluxLock
    static func pause(_ bus: Flux) {
        let lock = bus.lock()
        // ... the main lane is paused ...
        lock.release()
    }

    // Flux.watchLocks(heldLongerThan:_:)
    static func watchLocks(on bus: Flux) -> FluxLockWatch {
        let watch = bus.watchLocks(heldLongerThan: .seconds(2)) { report in
            print(report)
        }
        // keep `watch` for as long as you want to watch; watch.cancel() stops it
        return watch
    }

    // FluxLogger
    static func log(_ bus: Flux) {
        bus.use(FluxLogger())
        // mix #1 SessionMixers.login [user: String] → 1 observer; 0.04 ms;
        //   from App/LoginView.swift:42 in signIn()
    }

    // FluxMiddleware
    static func refuseGuests(on bus: Flux) {
        final class NoGuests: FluxMiddleware {
            func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
                event.payload?["user"] as? String == "guest" ? .stop(reason: "guests cannot mix") : .pass
            }
        }
        bus.use(NoGuests())
    }

    // FluxMixerName
    static func names() -> [FluxMixerName] {
        let name: FluxMixerName = "refresh"
        let scoped = FluxMixerName("login", domain: AuthMixers.self)
        return [name, scoped]
    }
}
