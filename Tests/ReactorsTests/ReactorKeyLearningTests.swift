import FlaskTestSupport
import FluxBus
import Foundation
import Reactors
import Substances
import Testing

/// Commits `count` changes of `text` (a key the handlers below never ask for), then one of
/// `counter`, one at a time.
private func commitText(
    _ count: Int, then counter: Int, on substance: Substance<AppState>, by reactor: Reactor<TestOwner>
)
    async
{
    for index in 0..<count { _ = await reactor.mix(substance) { $0.prop.text = "t\(index)" }.commit() }
    _ = await reactor.mix(substance) { $0.prop.counter = counter }.commit()
}

@Suite("Reactors: keys learned from what the handler asks")
struct ReactorKeyLearningTests {
    @Test("a handler that asks for one key, the same on every call, stops being called for commits that change none")
    func learns() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<Int>()
        let reactions = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            calls.append(1)
            reaction.on(AppState.prop.counter) { change in reactions.append(change.newValue() ?? -1) }
        }
        await commitText(8, then: 1, on: substance, by: reactor)  // the first 8 calls: learning
        #expect(calls.all.count == 9)
        await commitText(20, then: 2, on: substance, by: reactor)  // learned: text commits skip it
        #expect(calls.all.count == 10)
        #expect(reactions.all == [1, 2], "the reactions are the same either way")
    }

    @Test("a handler that asks for different keys on different calls is called for every commit")
    func differentKeys() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            calls.append(1)
            if calls.all.count % 2 == 0 { reaction.on("counter") { _ in } } else { reaction.on("text") { _ in } }
        }
        await commitText(30, then: 1, on: substance, by: reactor)
        #expect(calls.all.count == 31)
    }

    @Test("a learned handler that asks for a new key is found out within 16 calls, then called for every commit")
    func newKeyAfterLearning() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let asksText = Recorder<Bool>()
        let texts = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, reaction in
            reaction.on("counter") { _ in }
            if asksText.all.last == true { reaction.on("text") { change in texts.append(change.newValue() ?? "") } }
        }
        await commitText(0, then: 1, on: substance, by: reactor)
        for counter in 2...9 { await commitText(0, then: counter, on: substance, by: reactor) }  // learned: counter
        asksText.append(true)
        // Its calls ask for text too from now on; one of the next 16 is watched and finds it out.
        for counter in 10..<26 { await commitText(0, then: counter, on: substance, by: reactor) }
        await commitText(3, then: 26, on: substance, by: reactor)
        #expect(texts.all == ["t0", "t1", "t2"])
    }

    @Test("a handler that reads more than keys, or asks for none, is never skipped")
    func readsMore() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<String>()
        let manager = ReactorManager()
        let changed = manager.reactor(attachedTo: owner, mixing: [substance])
        changed.handler = { _, reaction in
            reaction.on("counter") { _ in }
            if reaction.changed() { calls.append("changed") }
        }
        let asksNothing = manager.reactor(attachedTo: TestOwner(), mixing: [substance])
        let nothingOwner = TestOwner()
        let silent = manager.reactor(attachedTo: nothingOwner, mixing: [substance])
        silent.handler = { _, _ in calls.append("silent") }
        _ = asksNothing
        await commitText(12, then: 1, on: substance, by: changed)
        #expect(calls.all.filter { $0 == "changed" }.count == 13)
        #expect(calls.all.filter { $0 == "silent" }.count == 13)
        withExtendedLifetime(nothingOwner) {}
    }

    @Test("learnsKeys = false calls the handler for every commit")
    func optOut() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.learnsKeys = false
        reactor.handler = { _, reaction in
            calls.append(1)
            reaction.on("counter") { _ in }
        }
        await commitText(20, then: 1, on: substance, by: reactor)
        #expect(calls.all.count == 21)
    }
}

private enum PairMixers: SubstanceMixer { case counter, text }

private final class Pair: ReactiveSubstance<AppState, PairMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .counter) { _, react, _ in
            self.prop.counter += 1
            react()
        }
        define(mix: .text) { _, react, _ in
            self.prop.text += "x"
            react()
        }
    }
}

extension ReactorKeyLearningTests {
    @Test("a reactive substance's reactors learn too, dispatched by mixers")
    func learnsWithMixers() async {
        let bus = Flux()
        let pair = Pair(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [pair])
        reactor.handler = { _, reaction in
            calls.append(1)
            reaction.on("counter") { _ in }
        }
        for _ in 0..<40 {
            bus.dispatch(PairMixers.counter)
            bus.dispatch(PairMixers.text)
        }
        await bus.flush()
        #expect(calls.all.count == 40 + 4, "8 learning calls, half of them for text, then counter commits only")
    }
}
