import FlaskTestSupport
import FluxBus
import Foundation
import Reactors
import Substances
import Synchronization
import Testing

/// A state with every kind of key a reaction names: top-level, nested, below an optional struct,
/// below a dictionary (a `_` one among them: data), an array.
struct ExactState: State {
    struct Nested: Codable, Equatable, Sendable {
        var x = 0
        var y = ""
    }
    struct Inner: Codable, Equatable, Sendable {
        var x = 0
        var name = ""
        var _cache = 0
    }
    var a = 0
    var s = ""
    var nested = Nested()
    var opt: Inner?
    var dict: [String: Int] = [:]
    var list: [Int] = []
    var _internal = 0
}

/// An owner whose state decides what its handler asks for (as `owner.showsDetails` would).
final class ModalOwner: Sendable {
    let mode = Atomic<Int>(0)
}

@Suite("Reactors: exact delivery")
struct ExactDeliveryTests {
    @Test("a handler runs for every commit; one whose keys follow its owner misses no reaction")
    func everyCommit() async {
        let bus = Flux()
        let substance = Substance<ExactState>(bus: bus)
        let owner = ModalOwner()
        let calls = Atomic<Int>(0)
        let details = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { owner, reaction in
            calls.add(1, ordering: .relaxed)
            reaction.on("a") { _ in }
            if owner.mode.load(ordering: .relaxed) == 1 {
                reaction.on("s") { change in details.append(change.newValue() ?? -1) }
            }
        }
        // 20 commits that change only "a", then the owner shows details: 480 commits of both keys.
        for index in 1...500 {
            reactor.mix(substance) { substance in
                substance.prop.a = index
                if index > 20 {
                    owner.mode.store(1, ordering: .relaxed)
                    substance.prop.s = "\(index)"
                }
            }.react()
        }
        await bus.flush()
        #expect(calls.load(ordering: .relaxed) == 500)
        #expect(details.count == 480)
    }

    @Test("keys below an optional react when it appears, changes and disappears, with nil on the missing side")
    func keysBelowAnOptional() async {
        let (bus, substance, reactor, reports) = rig()
        let seen = Recorder<String>()
        reactor.handler = { _, reaction in
            reaction.on("opt.x") { change in
                let old: Int? = change.oldValue()
                let new: Int? = change.newValue()
                seen.append("x \(old.map(String.init) ?? "nil")->\(new.map(String.init) ?? "nil")")
            }
            reaction.on("opt.name") { change in seen.append("name \(change.newValue() as String? ?? "nil")") }
            reaction.on("opt._cache") { _ in seen.append("cache") }  // a `_` property: never a change
        }
        reactor.mix(substance) { $0.prop.opt = .init(x: 7, name: "a") }.react()
        reactor.mix(substance) { $0.prop.opt?.x = 8 }.react()
        reactor.mix(substance) { $0.prop.opt?._cache = 1 }.react()
        reactor.mix(substance) { $0.prop.a = 1 }.react()
        reactor.mix(substance) { $0.prop.opt = nil }.react()
        await bus.flush()
        #expect(seen.all == ["x nil->7", "name a", "x 7->8", "x 8->nil", "name nil"])
        // "opt._cache" names a `_` property: reported, once, though the handler ran five times.
        #expect(reports.all.map(\.code) == [.unknownKey])
        #expect(reports.all.first?.message.contains("opt._cache") == true)
    }

    @Test("a key no state of the type can have is reported once per reactor and key, not per commit")
    func unknownKeyOnce() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let substance = Substance<ExactState>(bus: bus)
        let owner = TestOwner()
        for _ in 0..<2 {
            let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
            reactor.handler = { _, reaction in
                reaction.on("opt.nosuch") { _ in Issue.record("must not fire") }
                reaction.on("nope") { _ in Issue.record("must not fire") }
            }
        }
        for index in 1...50 { commit(substance) { $0.prop.opt = .init(x: index) } }
        await bus.flush()
        #expect(reports.all.count == 4)  // two keys, two reactors
    }

    @Test("a dictionary key that starts with _ is data: its change is seen; a _ property's is not")
    func underscoreDictionaryKeys() async {
        let (bus, substance, reactor, _) = rig()
        let seen = Recorder<[String]>()
        reactor.handler = { _, reaction in seen.append(reaction.keys.sorted()) }
        reactor.mix(substance) { $0.prop.dict["_draft"] = 1 }.react()
        reactor.mix(substance) { $0.prop._internal = 1 }.react()
        reactor.mix(substance) { $0.prop.opt = .init(_cache: 5) }.react()
        reactor.mix(substance) { $0.prop.opt?._cache = 6 }.react()
        await bus.flush()
        #expect(seen.all == [["dict", "dict._draft"], ["opt", "opt.name", "opt.x"]])
    }

    @Test("declared reactions run exactly when their key changed, and the reactor only then")
    func declaredReactions() async {
        let (bus, substance, reactor, _) = rig()
        let seen = Recorder<String>()
        reactor.on("a") { _, change in seen.append("a=\(change.newValue() as Int? ?? -1)") }
        reactor.on("opt.x") { _, change in seen.append("opt.x=\(change.newValue() as Int? ?? -1)") }
        reactor.on("dict.k") { _, change in seen.append("dict.k=\(change.newValue() as Int? ?? -1)") }
        reactor.mix(substance) { $0.prop.s = "skipped" }.react()
        reactor.mix(substance) { $0.prop.a = 1 }.react()
        reactor.mix(substance) { $0.prop.opt = .init(x: 2) }.react()
        reactor.mix(substance) { $0.prop.dict["k"] = 3 }.react()
        reactor.mix(substance) { $0.prop.dict["other"] = 4 }.react()
        await bus.flush()
        #expect(seen.all == ["a=1", "opt.x=2", "dict.k=3"])
    }

    @Test("a handler with declared keys and declared reactions: each runs for its own keys")
    func declaredReactionsBesideKeys() async {
        let (bus, substance, reactor, _) = rig()
        let seen = Recorder<String>()
        reactor.keys = ["s"]
        reactor.handler = { _, reaction in seen.append("handler \(reaction.keys.sorted())") }
        reactor.on("a") { _, _ in seen.append("a") }
        reactor.mix(substance) { $0.prop.a = 1 }.react()
        reactor.mix(substance) { $0.prop.s = "x" }.react()
        reactor.mix(substance) { $0.prop.list = [1] }.react()
        await bus.flush()
        #expect(seen.all == ["a", "handler [\"s\"]"])
    }

    @Test("a declared reaction to a key no substance has is reported once, when it is declared")
    func declaredUnknownKey() async {
        let (bus, substance, reactor, reports) = rig()
        reactor.on("nested.z") { _, _ in Issue.record("must not fire") }
        for index in 1...10 { commit(substance) { $0.prop.nested.x = index } }
        await bus.flush()
        #expect(reports.all.map(\.code) == [.unknownKey])
        #expect(reports.all.first?.message.contains("ExactDeliveryTests.swift") == true)
        _ = reactor
    }

    /// A bus whose diagnostics are recorded, a substance of `ExactState` on it, and a reactor of it
    /// (owned by `owner`, which lives as long as the tests).
    private func rig() -> (Flux, Substance<ExactState>, Reactor<TestOwner>, Recorder<FluxDiagnostic>) {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let substance = Substance<ExactState>(bus: bus)
        let reactor = ReactorManager().reactor(attachedTo: Self.owner, mixing: [substance])
        return (bus, substance, reactor, reports)
    }

    /// The owner of the rigs' reactors: alive as long as the tests (a reactor holds its owner weakly).
    private static let owner = TestOwner()

    /// Mixes `substance` in a chain (a commit from a test's loop).
    private func commit(
        _ substance: Substance<ExactState>, _ body: @escaping @Sendable (Substance<ExactState>) -> Void
    ) {
        ChainReaction(bus: substance.bus).mix(substance, body).react()
    }
}
