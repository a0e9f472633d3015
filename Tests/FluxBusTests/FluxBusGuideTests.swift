import FlaskTestSupport
import FluxBus
import Testing

@Suite("The FluxBus guide's sample")
struct FluxBusGuideTests {
    @Test("an exclusive refresh runs ahead of queued ones, which wait for its lock")
    func guide() async {
        let log = Recorder<String>()
        let downloader = Downloader { log.append($0) }
        let gate = downloader.bus.lock()
        downloader.refresh(page: 1)
        let lock = downloader.refreshAlone(page: 2)
        gate.release()
        await downloader.bus.settleExclusive()
        #expect(log.all == ["refresh page 2"])
        lock.release()
        await downloader.bus.flush()
        #expect(log.all == ["refresh page 2", "refresh page 1"])
    }

    @Test("work given as an object runs in its place in the queue")
    func workObject() async {
        let log = Recorder<String>()
        let downloader = Downloader { log.append($0) }
        downloader.refresh(page: 1)
        downloader.bus.perform(Reindex { log.append($0) })
        downloader.refresh(page: 2)
        await downloader.bus.flush()
        #expect(log.all == ["refresh page 1", "reindex", "refresh page 2"])
    }

    @Test("state confined to the bus counts what its observer saw")
    func confinedState() async {
        let bus = Flux()
        let counter = PageCounter(bus: bus)
        for page in 1...5 { bus.dispatch("refresh", payload: ["page": page]) }
        #expect(await counter.count(on: bus) == 5)
    }
}
