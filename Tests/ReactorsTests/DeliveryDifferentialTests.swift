import FlaskTestSupport
import FluxBus
import Foundation
import Reactors
import Substances
import Synchronization
import Testing

/// The package's reactions checked against a small reference model of the seed's semantics: every
/// commit that changed something calls every handler; `on(key)` runs iff the key's value changed;
/// a declared reaction likewise. Handlers ask for keys that depend on their owner's state, on the
/// substance's state and on what they saw before; commits change nested, optional, dictionary and
/// array keys at random.
@Suite("Reactors: delivery against a reference model")
struct DeliveryDifferentialTests {
    static let keys = [
        "a", "s", "nested", "nested.x", "nested.y", "opt", "opt.x", "opt.name", "dict", "dict.k0", "dict.k1",
        "dict._draft", "list",
    ]
    static let seeds: [UInt64] = [1, 2, 3, 4, 5]
    static let handlerCount = 24
    static let commitCount = 300

    /// The value of `key` in `state` as the reference reads it: a description, nil where there is
    /// nothing.
    static func value(_ key: String, in state: ExactState) -> String? {
        switch key {
        case "a": "\(state.a)"
        case "s": state.s
        case "nested": "\(state.nested.x),\(state.nested.y)"
        case "nested.x": "\(state.nested.x)"
        case "nested.y": state.nested.y
        case "opt": state.opt.map { "\($0.x),\($0.name)" }
        case "opt.x": state.opt.map { "\($0.x)" }
        case "opt.name": state.opt.map(\.name)
        case "dict": state.dict.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        case "list": "\(state.list)"
        default: key.hasPrefix("dict.") ? state.dict[String(key.dropFirst(5))].map { "\($0)" } : nil
        }
    }

    /// Whether the reference can compare the values a reaction reports for `key` (leaves only).
    static func comparesValues(of key: String) -> Bool {
        ["a", "s", "nested.x", "nested.y", "opt.x", "opt.name", "dict.k0", "dict.k1", "dict._draft"].contains(key)
    }

    /// A random change of one to three keys.
    static func mutate(_ state: inout ExactState, _ random: inout SeededRandom) {
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<11, using: &random) {
            case 0: state.a += 1
            case 1: state.s = ["", "x", "y"].randomElement(using: &random)!
            case 2: state.nested.x = Int.random(in: 0..<3, using: &random)
            case 3: state.nested.y = ["", "p"].randomElement(using: &random)!
            case 4: state.opt = Bool.random(using: &random) ? nil : .init(x: Int.random(in: 0..<3, using: &random))
            case 5: state.opt?.x = Int.random(in: 0..<3, using: &random)
            case 6: state.opt?.name = ["", "n"].randomElement(using: &random)!
            case 7: state.dict["k\(Int.random(in: 0..<2, using: &random))"] = Int.random(in: 0..<3, using: &random)
            case 8: state.dict["_draft"] = Bool.random(using: &random) ? nil : Int.random(in: 0..<3, using: &random)
            case 9: state.list = Bool.random(using: &random) ? [] : [Int.random(in: 0..<3, using: &random)]
            default: state._internal += 1  // never a change
            }
        }
    }

    /// The keys handler `index` asks for on its `call`-th call, given its owner's mode, the state's
    /// `a` and the last key it saw change: a function of all three, as app handlers are.
    static func asks(handler index: Int, call: Int, mode: Int, a: Int, lastSeen: Int) -> [String] {
        var hash = UInt64(index &* 31 &+ call &* 7 &+ mode &* 13 &+ a &* 3 &+ lastSeen &* 17)
        hash = (hash ^ (hash >> 7)) &* 0x9E37_79B9_7F4A_7C15
        return keys.indices.filter { (hash >> UInt64($0 % 60)) & 1 == 1 }.map { keys[$0] }
    }

    /// What one handler saw: per call, the keys that fired with their values.
    final class Log: Sendable {
        let calls = Mutex<[[String]]>([])
    }

    @Test("every reaction equals the reference model's", arguments: seeds)
    func matchesReference(seed: UInt64) async {
        var random = SeededRandom(seed: seed)
        let bus = Flux()
        bus.diagnostics = { _ in }
        let substance = Substance<ExactState>(bus: bus)
        let manager = ReactorManager()
        let owners = (0..<Self.handlerCount).map { _ in ModalOwner() }
        let logs = (0..<Self.handlerCount).map { _ in Log() }
        var declaredKeys: [[String]] = []
        for index in 0..<Self.handlerCount {
            let reactor = manager.reactor(attachedTo: owners[index], mixing: [substance])
            let log = logs[index]
            if index % 3 == 2 {
                // Declared reactions: a fixed set of keys, known to the library.
                let keys = Self.keys.filter { _ in Bool.random(using: &random) }
                declaredKeys.append(keys)
                for key in keys {
                    reactor.on(key) { _, change in
                        log.calls.withLock { $0.append(["\(key)|\(Self.describe(change))"]) }
                    }
                }
            } else {
                declaredKeys.append([])
                reactor.handler = { owner, reaction in
                    let mode = owner.mode.load(ordering: .relaxed)
                    let call = log.calls.withLock { $0.count }
                    let lastSeen = log.calls.withLock { $0.last?.count ?? 0 }
                    let a = (reaction.changes.substance as? Substance<ExactState>)?.state.a ?? 0
                    var fired: [String] = ["call"]
                    for key in Self.asks(handler: index, call: call, mode: mode, a: a, lastSeen: lastSeen) {
                        reaction.on(key) { change in fired.append("\(key)|\(Self.describe(change))") }
                    }
                    log.calls.withLock { $0.append(fired) }
                }
            }
        }
        // The reference, run alongside: the states, and each owner's mode at each commit.
        var states = [ExactState()]
        var modes: [[Int]] = []
        for _ in 0..<Self.commitCount {
            var next = states.last!
            Self.mutate(&next, &random)
            states.append(next)
            let flips = (0..<Self.handlerCount).map { _ in Int.random(in: 0..<4, using: &random) }
            modes.append(flips)
            let target = next
            ChainReaction(bus: bus).mix(substance) { substance in
                for (owner, mode) in zip(owners, flips) { owner.mode.store(mode, ordering: .relaxed) }
                substance.prop = target
            }.react()
        }
        await bus.flush()

        for index in 0..<Self.handlerCount {
            var expected: [[String]] = []
            for commit in 1..<states.count {
                let (old, new) = (states[commit - 1], states[commit])
                let changed = Self.keys.filter { Self.value($0, in: old) != Self.value($0, in: new) }
                if changed.isEmpty { continue }
                if !declaredKeys[index].isEmpty || index % 3 == 2 {
                    for key in declaredKeys[index] where changed.contains(key) {
                        expected.append(["\(key)|\(Self.describe(key, old, new))"])
                    }
                    continue
                }
                let lastSeen = expected.last?.count ?? 0
                var fired = ["call"]
                let asked = Self.asks(
                    handler: index, call: expected.count, mode: modes[commit - 1][index], a: new.a, lastSeen: lastSeen)
                for key in asked where changed.contains(key) { fired.append("\(key)|\(Self.describe(key, old, new))") }
                expected.append(fired)
            }
            let actual = logs[index].calls.withLock { $0 }
            #expect(actual == expected, "handler \(index), seed \(seed)")
        }
    }

    static func describe(_ change: SubstanceChange) -> String {
        guard comparesValues(of: change.key()) else { return "" }
        return "\(text(change.oldValue()))->\(text(change.newValue()))"
    }

    static func describe(_ key: String, _ old: ExactState, _ new: ExactState) -> String {
        guard comparesValues(of: key) else { return "" }
        return "\(value(key, in: old) ?? "nil")->\(value(key, in: new) ?? "nil")"
    }

    static func text(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return "\(value)"
    }
}
