import FluxBus

final class Downloader: Sendable {
    let bus = Flux(label: "downloads")
    let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
        bus.observe("refresh", owner: self) { downloader, event in
            downloader.log("refresh page \(event.payload?["page"] as? Int ?? 0)")
        }
    }

    func refresh(page: Int) {
        bus.dispatch("refresh", payload: ["page": page])
    }

    func refreshAlone(page: Int) -> FluxLock {
        // Runs ahead of queued work; the main lane waits until the lock is released.
        bus.lock(withMixer: "refresh", payload: ["page": page], autorelease: false)
    }
}

// The sample of docs/fluxbus.md, compiled against FluxBus alone (FluxBusGuideTests runs it).

final class Reindex: FluxWork, @unchecked Sendable {
    // `@unchecked Sendable`: immutable, and `log` is `@Sendable`.
    let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    override func run() {
        log("reindex")
    }
}

final class PageCounter: Sendable {
    // Touched only by the bus's work items: checked in debug builds.
    private let pages: BusConfined<Int>

    init(bus: Flux) {
        pages = BusConfined(0, on: bus, "PageCounter.pages")
        bus.observe("refresh", owner: self) { counter, _ in counter.pages.value += 1 }
    }
}

extension PageCounter {
    /// The pages counted so far, read on the bus after everything queued before (for the guide's
    /// test).
    func count(on bus: Flux) async -> Int {
        await withCheckedContinuation { continuation in
            bus.perform { continuation.resume(returning: self.pages.value) }
        }
    }
}
