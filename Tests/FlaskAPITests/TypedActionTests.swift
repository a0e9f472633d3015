import FlaskAPI
import FlaskTestSupport
import FlaskTools
import Foundation
import Testing

private struct ShopState: State {
    var items: [String] = []
    var user: String?
    var refreshes = 0
}

private enum ShopMixers2: SubstanceMixer {
    case clear
}

private struct AddItem: FlaskAction, Codable {
    let name: String
}

private struct SignIn: FlaskAction, Codable {
    let user: String
}

/// An action without stored properties (`Codable`, so that a journal read back replays it).
private struct Refresh: FlaskAction, Codable {}

private final class Shop: ReactiveSubstance<ShopState, ShopMixers2>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .clear) { _, react, _ in
            self.prop.items = []
            react()
        }
        define(AddItem.self) { action, react, abort in
            guard !action.name.isEmpty else { return abort() }
            self.prop.items.append(action.name)
            react()
        }
        define(Refresh.self) { _, react, _ in
            self.prop.refreshes += 1
            react()
        }
    }
}

/// Another substance, of another mixer enumeration, defining one of the same actions.
private final class Account: ReactiveSubstance<ShopState, NoMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(SignIn.self) { action, react, _ in
            self.prop.user = action.user
            react()
        }
        define(AddItem.self) { action, react, _ in
            self.prop.items.append("seen \(action.name)")
            react()
        }
    }
}

private enum NoMixers: SubstanceMixer { case none }

private struct Measure: FlaskAction, Codable {
    let ratio: Double
}

private struct GaugeState: State {
    var readings: [Double] = []
}

private final class Gauge: ReactiveSubstance<GaugeState, NoMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(Measure.self) { action, react, _ in
            self.prop.readings.append(action.ratio)
            react()
        }
    }
}

@Suite("Typed actions in the journal")
struct TypedActionJournalTests {
    @Test("an action's doubles are exported and replayed exactly")
    func exactDoubles() async throws {
        let values = [0.1 + 0.2, 123_456_789.123_456_78, 3.0, 1e300, Double.leastNonzeroMagnitude, -1.5, -0.0]
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let gauge = Gauge(name: "gauge", bus: bus)
        for value in values { await Flask.apply(Measure(ratio: value), on: bus) }
        bus.remove(journal)
        let entries = try MixJournal.entries(fromJSONLines: journal.jsonLines())
        let replayBus = Flux()
        let fresh = Gauge(name: "gauge", bus: replayBus)
        let replay = await MixJournal.replay(entries, on: replayBus, domains: [Measure.self], substances: [fresh])
        #expect(replay.replayed == values.count)
        // Bit for bit (`==` would take -0.0 for 0.0).
        #expect(gauge.state.readings.map(\.bitPattern) == values.map(\.bitPattern))
        #expect(fresh.state.readings.map(\.bitPattern) == values.map(\.bitPattern))
    }
}

@Suite("Typed actions")
struct TypedActionTests {
    @Test("an action reaches every substance that defines its type, typed, in FIFO order with enum mixers")
    func dispatch() async {
        let bus = Flux()
        let cart = Shop(bus: bus)
        let account = Account(bus: bus)
        Flask.substances(reactTo: AddItem(name: "tea"), on: bus)
        Flask.substances(reactTo: ShopMixers2.clear, on: bus)
        Flask.substances(reactTo: AddItem(name: "cake"), on: bus)
        Flask.substances(reactTo: SignIn(user: "ada"), on: bus)
        await bus.flush()
        #expect(cart.state.items == ["cake"])
        #expect(account.state.items == ["seen tea", "seen cake"])
        #expect(account.state.user == "ada")
    }

    @Test("an awaited action tells a commit, an abort and nobody apart")
    func awaited() async {
        let bus = Flux()
        let cart = Shop(bus: bus)
        let committed = await Flask.apply(AddItem(name: "tea"), on: bus)
        #expect(committed.changes.map(\.keys) == [["items"]])
        let aborted = await Flask.apply(AddItem(name: ""), on: bus)
        #expect(aborted.wasAborted)
        #expect(await Flask.apply(SignIn(user: "ada"), on: bus).reachedNobody)
        #expect(cart.state.items == ["tea"])
    }

    @Test("an action without stored properties arrives")
    func emptyAction() async {
        let bus = Flux()
        let cart = Shop(bus: bus)
        for _ in 0..<3 { Flask.substances(reactTo: Refresh(), on: bus) }
        await bus.flush()
        #expect(cart.state.refreshes == 3)
    }

    @Test("an action with a lock runs on the exclusive lane and its lock reaches the reaction")
    func lockedAction() async {
        let bus = Flux()
        let cart = Shop(bus: bus)
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: cart)
        let released = Recorder<Bool>()
        reactor.handler = { _, reaction in
            if let lock = reaction.onLock {
                released.append(true)
                lock.release()
            }
        }
        let blocker = Flask.lock(on: bus)
        Flask.substances(reactTo: AddItem(name: "queued"), on: bus)
        Flask.lock(withMixer: AddItem(name: "first"), on: bus)
        blocker.release()
        await bus.flush()
        #expect(cart.state.items == ["first", "queued"])
        #expect(released.all == [true])
        #expect(bus.openLocks.isEmpty)
    }

    @Test("middleware see the action; the journal records it by type and fields, and replays it")
    func journal() async throws {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(journal)
        let cart = Shop(name: "cart", bus: bus)
        Flask.substances(reactTo: AddItem(name: "tea"), on: bus)
        Flask.substances(reactTo: Refresh(), on: bus)
        await bus.flush()
        let entries = journal.entries
        #expect(entries.map(\.mixerDescription) == ["AddItem", "Refresh"])
        #expect(entries.first?.action == .object(["name": .string("tea")]))
        #expect(entries.first?.isAction == true)
        // Exported and read back, the action replays from its recorded fields.
        let readBack = try MixJournal.entries(fromJSONLines: journal.jsonLines())
        let freshBus = Flux()
        let fresh = Shop(name: "cart", bus: freshBus)
        let replay = await MixJournal.replay(readBack, on: freshBus, domains: [AddItem.self, Refresh.self])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state.items == cart.state.items)
        #expect(fresh.state.refreshes == 1)
    }

    @Test("an enum mixer case with associated values is reported where it is defined")
    func valuedCase() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { reports.append($0.code) }
        _ = ValuedSubstance(bus: bus)
        #expect(reports.all == [.mixerWithValues])
    }
}

private enum ValuedMixers: SubstanceMixer {
    case login(user: String)
    case logout
}

private final class ValuedSubstance: ReactiveSubstance<ShopState, ValuedMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .login(user: "")) { _, react, _ in react() }
        define(mix: .logout) { _, react, _ in react() }
    }
}

@Suite("A chain step that aborts")
struct ChainAbortTests {
    @Test("a step may abort the whole chain: every substance stays as it was, and commit() says so")
    func abortFromStep() async {
        let bus = Flux()
        let session = Substance<ShopState>(bus: bus)
        let todos = Substance<ShopState>(bus: bus)
        let owner = TestOwner()
        let reactions = Recorder<Int>()
        let reactor = Flask.reactor(attachedTo: owner, mixing: [session, todos])
        reactor.handler = { _, _ in reactions.append(1) }
        let ran = Recorder<String>()
        let outcome =
            await reactor
            .mix(session) { $0.prop.user = "nobody" }
            .mix(todos) { todos, abort in
                ran.append("check")
                abort()
            }
            .mix(todos) { _ in ran.append("after the abort") }
            .reactAndWait()
        #expect(outcome.wasAborted)
        #expect(outcome.entries.count == 2 && outcome.entries.allSatisfy(\.aborted))
        #expect(session.state.user == nil)
        #expect(ran.all == ["check"])
        await bus.flush()
        #expect(reactions.all.isEmpty)
    }

    @Test("a step that does not abort lets the chain commit")
    func noAbort() async {
        let bus = Flux()
        let a = Substance<ShopState>(bus: bus)
        let outcome = await ChainReaction(bus: bus)
            .mix(a) { a, abort in
                if a.prop.items.count > 10 { abort() }
                a.prop.items.append("x")
            }
            .reactAndWait()
        #expect(!outcome.wasAborted)
        #expect(a.state.items == ["x"])
    }
}

/// Tests that follow the testing guide: each test has a bus of its own, so they run in parallel
/// without seeing each other's mixes, however many run at once.
@Suite("A bus per test, in parallel")
struct BusPerTestTests {
    @Test("each case mixes its own substance on its own bus", arguments: 0..<16)
    func isolated(case index: Int) async {
        let bus = Flux()
        let cart = Shop(bus: bus)
        for item in 0...index { Flask.substances(reactTo: AddItem(name: "\(index).\(item)"), on: bus) }
        Flask.substances(reactTo: ShopMixers2.clear, on: bus)
        await Flask.apply(AddItem(name: "last \(index)"), on: bus)
        #expect(cart.state.items == ["last \(index)"])
    }
}

private struct Balance: State, Equatable {
    var cents = 0
    var transfers = 0
}

private enum LedgerMixers: SubstanceMixer {
    case none
}

/// Two substances that handle the same action, as a ledger and an audit log would.
private final class Ledger: ReactiveSubstance<Balance, LedgerMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(Transfer.self) { transfer, react, _ in
            self.prop.cents += transfer.amount
            self.prop.transfers += 1
            react()
        }
    }
}

@Suite("One validation for every receiver of an action")
struct ActionValidationTests {
    @Test("a middleware stops an invalid action before any substance receives it; a valid one reaches all")
    func validatedOnce() async {
        let bus = Flux(label: "transfers")
        validateTransfers(on: bus)
        let ledger = Ledger(bus: bus)
        let audit = Ledger(bus: bus)
        let refused = await Flask.apply(Transfer(amount: -5), on: bus)
        #expect(refused.reachedNobody)
        let accepted = await Flask.apply(Transfer(amount: 7), on: bus)
        #expect(accepted.entries.count == 2)
        #expect(ledger.state == Balance(cents: 7, transfers: 1))
        #expect(audit.state == Balance(cents: 7, transfers: 1))
    }
}

/// Stops every mix of an item named "forbidden".
private final class NoForbidden: FluxMiddleware {
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        (event.value as? AddItem)?.name == "forbidden" ? .stop(reason: "forbidden item") : .pass
    }
}

@Suite("A stopped mix is not an applied one")
struct StoppedMixTests {
    @Test("an awaited mix a middleware stopped says so, by whom and why; stored() refuses to acknowledge it")
    func stopped() async {
        let bus = Flux()
        bus.use(NoForbidden())
        let shop = Shop(bus: bus)
        let stopped = await Flask.apply(AddItem(name: "forbidden"), on: bus)
        #expect(stopped.wasStopped && !stopped.wasApplied && !stopped.wasAborted)
        #expect(stopped.stop?.middleware == "NoForbidden")
        #expect(stopped.stop?.reason == "forbidden item")
        await #expect(throws: ArchiveProblem.self) { try await stopped.stored() }
        let applied = await Flask.apply(AddItem(name: "tea"), on: bus)
        #expect(applied.wasApplied && !applied.wasStopped && applied.stop == nil)
        #expect(shop.state.items == ["tea"])
        let aborted = await Flask.apply(AddItem(name: ""), on: bus)
        #expect(aborted.wasAborted && !aborted.wasApplied && !aborted.wasStopped)
        do {
            try await aborted.stored()
            Issue.record("an aborted mix was acknowledged as stored")
        } catch {
            #expect(error.kind == .notApplied)
        }
    }
}
