import FlaskAPI
import FlaskTestSupport
import FlaskTesting
import FlaskTools
import Foundation
import Synchronization
import Testing

@Suite("Tools: middleware, journal, replay, undo, probe, lock diagnostics (docs/tools.md)")
struct ToolsTests {
    @Test("the middleware sample stops free items, renames legacy mixers and logs every mix")
    func middlewareSample() async {
        let bus = Flux()
        let lines = Recorder<String>()
        installMiddleware(on: bus) { lines.append($0) }
        let cart = makeCart(bus: bus)
        bus.dispatch(Flask.mixerName(ShopMixers.add), payload: ["item": "gift", "price": 0])
        bus.dispatch(Flask.mixerName(ShopMixers.add), payload: ["item": "tea", "price": 4])
        bus.dispatch("legacy-checkout")
        await bus.flush()
        #expect(cart.state == CartState())
        #expect(lines.count == 3)
        #expect(lines.all[0].contains("stopped by PricesArePositive: a price must be positive"))
        #expect(lines.all[1].contains("cart: items, total (0 reactors)"))
        #expect(lines.all[2].contains("ShopMixers.checkout (replacing legacy-checkout)"))
    }

    @Test("the history sample keeps Sendable summaries of the mixes, with what each substance changed")
    func historySample() async {
        let bus = Flux()
        let history = MixHistory()
        bus.use(history)
        let cart = makeCart(bus: bus)
        bus.dispatch(Flask.mixerName(ShopMixers.add), payload: ["item": "tea", "price": 4])
        await bus.flush()
        #expect(cart.state.items == ["tea"])
        let recent = history.recent.withLock { $0 }
        #expect(recent.map(\.mixer) == [Flask.mixerName(ShopMixers.add)])
        #expect(recent.first?.recordDescriptions == ["cart: items, total (0 reactors)"])
        #expect(recent.first?.observersCalled == 1)
    }

    @Test("the backlog sample logs a bus falling 10,000 items behind, once")
    func backlogSample() async {
        let bus = Flux(label: "sample.bus")
        let lines = Recorder<String>()
        watchBacklog(of: bus) { lines.append($0) }
        let lock = bus.lock()
        for _ in 0..<20_000 { bus.dispatch("tick") }
        lock.release()
        await bus.flush()
        #expect(lines.count == 1)
        #expect(lines.all.first?.hasPrefix("bus sample.bus: 10000 work items are waiting") == true)
    }

    @Test("the journal sample records a session that replays, from JSON lines, to the same state")
    func journalSample() async throws {
        let journal = await Flask.withBus(Flux()) { await recordSession() }
        #expect(journal.entries.map(\.mixer) == ["add", "add", "checkout"])
        let (replay, state) = try await replaySession(journal.jsonLines())
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(replay.replayed == 3)
        #expect(state == CartState())
    }

    @Test("the timeline samples write the page, and the journal that the command line reads back")
    func timelineSamples() async throws {
        let journal = await Flask.withBus(Flux()) { await recordSession() }
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("timeline.html")
        try writeTimeline(of: journal, to: page)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains(#"data-key="total""#))
        let saved = try saveJournal(journal, in: folder)
        let document = try MixJournal.Document(jsonLines: String(contentsOf: saved, encoding: .utf8))
        #expect(document.entries.map(\.serial) == journal.entries.map(\.serial))
        // The JSON lines keep whole seconds of the dates: the rows are the same, the times may not be.
        let rows = document.timelineHTML().components(separatedBy: "data-mix-serial=\"").count - 1
        #expect(rows == journal.entries.count && rows == 3)
    }

    @Test("a session with chain reactions and reactors replays to the same states and changes")
    func chainReplay() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let cart = makeCart(bus: bus)
        let wishlist = Substance<CartState>(name: "wishlist", bus: bus)
        let owner = TestOwner()
        let reactor = Reactor(owner: owner, mixing: [cart, wishlist])
        let seen = Recorder<String>()
        reactor.handler = { _, reaction in reaction.on("total") { _ in seen.append("total") } }
        bus.dispatch(Flask.mixerName(ShopMixers.add), payload: ["item": "tea", "price": 4])
        _ = await reactor.mix(wishlist) { $0.prop.items = ["cake"] }.mix(cart) { $0.prop.total += 1 }.reactAndWait()
        reactor.mix(wishlist) { $0.prop.total = 9 }.react()
        bus.dispatch(Flask.mixerName(ShopMixers.add), payload: ["item": "jam", "price": 3])
        await bus.flush()
        #expect(journal.entries.map(\.kind) == [.mixer, .task, .task, .mixer])
        #expect(journal.entries[1].reactorsNotified == 2)
        #expect(seen.count == 4)

        let freshBus = Flux()
        let freshCart = makeCart(bus: freshBus)
        let freshWishlist = Substance<CartState>(name: "wishlist", bus: freshBus)
        let entries = try MixJournal.entries(fromJSONLines: journal.jsonLines())
        let replay = await MixJournal.replay(
            entries, on: freshBus, domains: [ShopMixers.self], substances: [freshCart, freshWishlist])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(freshCart.state == cart.state)
        #expect(freshWishlist.state == wishlist.state)
        #expect(cart.state.total == 8 && wishlist.state == CartState(items: ["cake"], total: 9))
        withExtendedLifetime(owner) {}
    }

    @Test("the undo sample undoes the last change; a probe on a reactor sees what it sees")
    func undoAndProbe() async throws {
        let bus = Flux()
        let cart = makeCart(bus: bus)
        let owner = TestOwner()
        let reactor = Reactor(owner: owner, mixing: [cart])
        let probe = ChangeProbe(reactor)
        bus.dispatch(Flask.mixerName(ShopMixers.add), payload: ["item": "tea", "price": 4])
        await bus.flush()
        let history = SubstanceHistory(of: cart)
        bus.dispatch(Flask.mixerName(ShopMixers.add), payload: ["item": "cake", "price": 6])
        await bus.flush()
        await history.undo()
        try await probe.expect([
            .change("items", from: [], to: ["tea"]),
            .change("total", from: 0, to: 4),
            .change("items", from: ["tea"], to: ["tea", "cake"]),
            .change("total", from: 4, to: 10),
            .change("items", from: ["tea", "cake"], to: ["tea"]),
            .change("total", from: 10, to: 4),
        ])
        #expect(history.canRedo)
        let sample = undoLastChange(of: cart)
        await bus.flush()
        #expect(!sample.canUndo)
        withExtendedLifetime(owner) {}
    }

    @Test("the undo sample of getting started logs out in one chain and undoes it in one step")
    func undoLogoutSample() async {
        await Flask.withBus(Flux()) {
            let session = makeSession()
            let todos = Substance<TodoState>()
            await Flask.apply(Login(user: "ada"))
            await ChainReaction().mix(todos) { $0.prop.items = ["tea"] }.reactAndWait()
            #expect(await logOutThenUndo(session: session, todos: todos))
            #expect(session.state.user == "ada")
            #expect(todos.state.items == ["tea"])
        }
    }

    @Test("the probe sample passes, and the lock watch sample watches")
    func probeAndWatchSamples() async throws {
        let bus = Flux()
        await Flask.withBus(bus) { await expectCartChanges() }
        let watch = watchLocks(on: bus)
        #expect(watch.threshold == .seconds(2))
        watch.cancel()
    }
}
