import FlaskAPI
import FlaskTestSupport
import FlaskTools
import Foundation
import Testing

struct BoardCard: Codable, Equatable, Sendable {
    var title: String
    var points = 0
}

/// The edits of the tests, written once for a board of big collections and one of plain ones.
protocol BoardState: State {
    mutating func load(_ count: Int)
    mutating func retitle(_ key: String, _ title: String)
    mutating func remove(_ key: String)
    mutating func rewriteSame()
    var titles: [String: String] { get }
}

struct BigBoard: BoardState {
    var cards: BigDictionary<String, BoardCard> = [:]
    var order: BigArray<String> = []

    mutating func load(_ count: Int) {
        cards = BigDictionary(
            Dictionary(uniqueKeysWithValues: (0..<count).map { ("c\($0)", BoardCard(title: "card \($0)")) }))
        order = BigArray((0..<count).map { "c\($0)" })
    }
    mutating func retitle(_ key: String, _ title: String) { cards[key]?.title = title }
    mutating func remove(_ key: String) {
        cards[key] = nil
        order.removeLast()
    }
    mutating func rewriteSame() {
        cards["c1"] = cards["c1"]
        order[0] = "c0"
    }
    var titles: [String: String] { cards.dictionary.mapValues(\.title) }
}

struct PlainBoard: BoardState {
    var cards: [String: BoardCard] = [:]
    var order: [String] = []

    mutating func load(_ count: Int) {
        cards = Dictionary(uniqueKeysWithValues: (0..<count).map { ("c\($0)", BoardCard(title: "card \($0)")) })
        order = (0..<count).map { "c\($0)" }
    }
    mutating func retitle(_ key: String, _ title: String) { cards[key]?.title = title }
    mutating func remove(_ key: String) {
        cards[key] = nil
        order.removeLast()
    }
    mutating func rewriteSame() {
        cards["c1"] = cards["c1"]
        order[0] = "c0"
    }
    var titles: [String: String] { cards.mapValues(\.title) }
}

/// A value as text, a dictionary's entries in the order of their keys.
func describe(_ value: Any?) -> String {
    guard let value else { return "nil" }
    if let dictionary = value as? [String: Any] {
        return "[" + dictionary.keys.sorted().map { "\($0): \(describe(dictionary[$0]))" }.joined(separator: ", ") + "]"
    }
    return String(describing: value)
}

@Suite("Big collections in a running app: what a plain collection gives, reactions to archives")
struct BigCollectionReactionTests {
    /// The reactions and committed keys of the same edits on a board of type `S`.
    func reactions<S: BoardState>(_ type: S.Type) async -> [String] {
        let bus = Flux()
        let board = Substance<S>(bus: bus)
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: board)
        let seen = Recorder<String>()
        reactor.handler = { _, reaction in
            reaction.on("cards") { _ in seen.append("cards") }
            reaction.on("cards.c42") { change in
                seen.append("c42: \(describe(change.oldValue())) -> \(describe(change.newValue()))")
            }
            reaction.on("order") { change in
                seen.append("order: \((change.newValue() as (any Collection)?)?.count ?? -1)")
            }
        }
        await reactor.mix(board) { $0.prop.load(10_000) }.reactAndWait()
        let retitled = await reactor.mix(board) { $0.prop.retitle("c42", "Ship it") }.reactAndWait()
        seen.append("keys: \(retitled.changes.map { $0.keys.sorted() })")
        await reactor.mix(board) { $0.prop.remove("c42") }.reactAndWait()
        // The same values written again: no change, no reaction.
        let same = await reactor.mix(board) { $0.prop.rewriteSame() }.reactAndWait()
        seen.append("same: \(same.changes.map { $0.keys.sorted() })")
        withExtendedLifetime(reactor) {}
        return seen.all
    }

    @Test("one-entry edits react as a plain dictionary's and array's: the property, the entry, old and new values")
    func sameReactions() async {
        let big = await reactions(BigBoard.self)
        let plain = await reactions(PlainBoard.self)
        #expect(big == plain)
        #expect(big.contains("keys: [[\"cards\", \"cards.c42\", \"cards.c42.title\"]]"))
        #expect(big.contains("order: 9999"))
        #expect(big.last == "same: []")
        #expect(big.filter { $0.hasPrefix("c42:") }.count == 3)
    }

    @Test("a typed key path reads an entry of a big dictionary as its own type, before and after")
    func typedEntry() async {
        let bus = Flux()
        let board = Substance<BigBoard>(bus: bus)
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: board)
        let seen = Recorder<String>()
        reactor.handler = { _, reaction in
            reaction.on(\BigBoard.cards["c1"]) { change in
                seen.append("\(change.oldValue?.title ?? "nil") -> \(change.newValue?.title ?? "nil")")
            }
        }
        await reactor.mix(board) { $0.prop.load(10) }.reactAndWait()
        await reactor.mix(board) { $0.prop.retitle("c1", "first") }.reactAndWait()
        await reactor.mix(board) { $0.prop.retitle("c2", "second") }.reactAndWait()
        await reactor.mix(board) { $0.prop.cards["c1"] = nil }.reactAndWait()
        #expect(seen.all == ["nil -> card 1", "card 1 -> first", "first -> nil"])
        withExtendedLifetime(reactor) {}
    }
}
