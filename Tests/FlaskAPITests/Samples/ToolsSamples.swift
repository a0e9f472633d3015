// Samples of docs/tools.md, compiled as they appear there. Each uses the current bus (`Flask.bus`),
// or the one it is given: in an app the shared one; the tests run them inside `Flask.withBus`.
import FlaskAPI
import FlaskTesting
import FlaskTools
import Foundation
import Synchronization
import Testing

enum ShopMixers: SubstanceMixer {
    case add, checkout
}

struct CartState: State, Equatable {
    var items: [String] = []
    var total = 0
}

typealias Cart = ReactiveSubstance<CartState, ShopMixers>

func makeCart(bus: Flux = Flask.bus) -> Cart {
    Cart(name: "cart", bus: bus) { define in
        define(mix: .add) { cart, payload, react, abort in
            guard let item = payload?["item"] as? String, let price = payload?["price"] as? Int else {
                return abort()
            }
            cart.prop.items.append(item)
            cart.prop.total += price
            react()
        }
        define(mix: .checkout) { cart, _, react, _ in
            cart.prop = CartState()
            react()
        }
    }
}

/// Stops any mix whose payload has a price that is not positive.
final class PricesArePositive: FluxMiddleware {
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        if let price = event.payload?["price"] as? Int, price <= 0 {
            return .stop(reason: "a price must be positive")
        }
        return .pass
    }
}

/// Turns the old `checkout` of a v1 client into the v2 mixer, with a payload it understands.
final class RenameLegacyMixers: FluxMiddleware {
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        guard event.mixer == "legacy-checkout" else { return .pass }
        return .replace(Flask.mixerName(ShopMixers.checkout), payload: event.payload)
    }
}

/// Keeps a `Sendable` summary of the last 100 mixes.
final class MixHistory: FluxMiddleware {
    let recent = Mutex<[FluxMixReport.Summary]>([])

    func didMix(_ report: FluxMixReport) {
        let summary = report.summary
        recent.withLock { $0 = Array(($0 + [summary]).suffix(100)) }
    }
}

func installMiddleware(on bus: Flux = Flask.bus, log: @escaping @Sendable (String) -> Void) {
    bus.use(PricesArePositive())
    bus.use(RenameLegacyMixers())
    bus.use(FluxLogger(output: log))
}

func recordSession() async -> MixJournal {
    let journal = MixJournal(capacity: 1_000)
    Flask.bus.use(journal)
    let cart = makeCart()
    Flask.substances(reactTo: ShopMixers.add, payload: ["item": "tea", "price": 4])
    Flask.substances(reactTo: ShopMixers.add, payload: ["item": "cake", "price": 6])
    await Flask.apply(ShopMixers.checkout)
    Flask.bus.remove(journal)
    return withExtendedLifetime(cart) { journal }
}

func writeTimeline(of journal: MixJournal, to url: URL) throws {
    try journal.timelineHTML().write(to: url, atomically: true, encoding: .utf8)
}

func saveJournal(_ journal: MixJournal, in folder: URL? = nil) throws -> URL {
    let documents = folder ?? FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
    let url = documents.appendingPathComponent("flask-journal.jsonl")
    try journal.jsonLines().write(to: url, atomically: true, encoding: .utf8)
    return url
}

func replaySession(_ jsonLines: String) async throws -> (MixJournal.Replay, CartState) {
    let entries = try MixJournal.entries(fromJSONLines: jsonLines)
    let bus = Flux(label: "replay")
    let cart = makeCart(bus: bus)
    let replay = await MixJournal.replay(entries, on: bus, domains: [ShopMixers.self], substances: [cart])
    return (replay, cart.state)
}

func replayFromStart(_ jsonLines: String) async throws -> MixJournal.Replay {
    let document = try MixJournal.Document(jsonLines: jsonLines)
    let bus = Flux(label: "replay")
    let cart = makeCart(bus: bus)
    return await MixJournal.replay(document, on: bus, domains: [ShopMixers.self], substances: [cart])
}

func undoLastChange(of cart: Cart) -> SubstanceHistory {
    let history = SubstanceHistory(of: cart, limit: 50, mergingWithin: .milliseconds(300))
    // ... later, when the user asks (without waiting for it):
    history.undo(completion: nil)
    return history
}

struct TodoState: State {
    var items: [String] = []
}

func logOutThenUndo(session: Session, todos: Substance<TodoState>) async -> Bool {
    let history = SubstanceHistory(of: [session, todos], limit: 50)
    await ChainReaction()
        .mix(session) { $0.prop.user = nil }
        .mix(todos) { $0.prop.items = [] }
        .reactAndWait()
    // One step: the user and the todos come back together.
    return await history.undo()
}

func expectCartChanges() async {
    let cart = makeCart()
    let probe = ChangeProbe(cart)
    Flask.substances(reactTo: ShopMixers.add, payload: ["item": "tea", "price": 4])
    let mismatch = await probe.mismatch(with: [
        .change("items", from: [], to: ["tea"]),
        .change("total", from: 0, to: 4),
    ])
    #expect(mismatch == nil)
}

func watchLocks(on bus: Flux = Flask.bus) -> FluxLockWatch {
    print(bus.lockReport())
    return bus.watchLocks(heldLongerThan: .seconds(2)) { report in
        print("a lock is held too long:\n\(report)")
    }
}

struct AccountState: State {
    var user = ""
    var token = ""
    static var secretKeys: Set<String> { ["token"] }
}

func printDiffs(of bus: Flux) {
    bus.use(MixDiffPrinter())
}
