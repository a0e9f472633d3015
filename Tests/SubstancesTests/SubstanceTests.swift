import FlaskTestSupport
import FluxBus
import Foundation
import Testing

@testable import Substances

struct CounterState: State {
    enum prop: StateProp { case counter, text }
    var counter = 0
    var text = ""
}

enum CounterMixers: SubstanceMixer {
    case increment, incrementTwice, abortAfterChange, forget, lateReact
}

final class CounterSubstance: ReactiveSubstance<CounterState, CounterMixers>, @unchecked Sendable {
    let late = Recorder<MixerResolution>()

    override func defineMixers() {
        define(mix: .increment) { payload, react, abort in
            self.prop.counter += (payload?["by"] as? Int) ?? 1
            react()
        }
        define(mix: .abortAfterChange) { _, react, abort in
            self.prop.counter = 999
            self.prop.text = "dirty"
            abort()
        }
        define(mix: .forget) { _, _, _ in
            self.prop.counter = 500
        }
        define(mix: .lateReact) { _, react, _ in
            self.late.append(react)
        }
    }
}

func mixerName(_ mixer: CounterMixers) -> FluxMixerName {
    mixer.busName
}

@Suite("Substances: transactions, mixers, identity")
struct SubstanceTests {
    @Test("StateProp and SubstanceMixer names: case names, or raw values")
    func names() {
        enum Raw: String, StateProp { case counter = "count" }
        #expect(CounterState.prop.counter.key == "counter")
        #expect(Raw.counter.key == "count")
        #expect(CounterMixers.increment.mixerName == "increment")
    }

    @Test("react() commits: state changes and observers get the change with the payload applied")
    func reactCommits() async {
        let bus = Flux()
        let substance = CounterSubstance(bus: bus)
        let log = ChangeLog()
        substance.bind(log)
        bus.dispatch(mixerName(.increment), payload: ["by": 5])
        await bus.flush()
        #expect(substance.state.counter == 5)
        #expect(log.keys == [["counter"]])
        #expect(log.entries.all.first?.changes.change("counter")?.newValue() == 5)
    }

    @Test("every commit reports the right old and new values, whether its changes are recycled or kept")
    func valuesAcrossRecycledCommits() async {
        // Changes nobody keeps are refilled by the next commit; every third commit's are kept here,
        // so refills and fresh objects alternate. The state holds a String, so it is not plain data.
        let bus = Flux()
        let substance = Substance<CounterState>(bus: bus)
        let reader = ValueReader()
        substance.bind(reader)
        for value in 1...60 {
            await substance.commit(counter: value, text: "text \(value) of a length that is stored out of line")
        }
        let expected = (1...60).map { value in
            "\(value - 1)->\(value) \(value == 1 ? "" : "text \(value - 1) of a length that is stored out of line")->"
                + "text \(value) of a length that is stored out of line"
        }
        #expect(reader.seen.all == expected)
        #expect(reader.kept.count == 20)
        // The kept changes were never refilled: each still holds its own commit's values, read on
        // the bus (the last one reads its new state in the substance's slot until the next commit).
        let keptValues = Recorder<Int?>()
        bus.perform { for changes in reader.kept.all { keptValues.append(changes.change("counter")?.newValue()) } }
        await bus.flush()
        #expect(keptValues.all == (1...20).map { 3 * $0 })
        #expect(substance.state.text == "text 60 of a length that is stored out of line")
    }

    @Test(
        "changes held past their delivery keep their own commit's state, through commits that change nothing, and after their substance is gone"
    )
    func heldChangesKeepTheirState() async {
        // A refilled changes object reads its new state in the substance's committed slot; held by
        // someone at the next commit, it copies it out first (`Substance.settleSpareChanges`).
        @Sendable func describe(_ changes: SubstanceChanges) -> String {
            let new = changes.states?.new as? CounterState
            let counter: Int? = changes.change("counter")?.newValue()
            return "\(counter ?? -1) \(new?.counter ?? -1) \(new?.text ?? "?")"
        }
        let bus = Flux()
        var substance: Substance<CounterState>? = Substance<CounterState>(bus: bus)
        let keeper = ChangesKeeper()
        substance?.bind(keeper)
        let text = outOfLineText
        for value in 1...10 {
            await substance?.commit(counter: value, text: text(value))
            // A commit that changes nothing: the slots trade places, nobody is told.
            if value.isMultiple(of: 4) { await substance?.mixAndWait { $0.prop.counter = value } }
        }
        let expected = stride(from: 2, through: 10, by: 2).map { "\($0) \($0) \(text($0))" }
        let onBus = Recorder<String>()
        bus.perform { for changes in keeper.kept.all { onBus.append(describe(changes)) } }
        await bus.flush()
        #expect(onBus.all == expected)
        // The substance goes while the last commit's changes are still held: they keep its state.
        weak let gone = substance
        substance = nil
        await bus.flush()
        #expect(gone == nil)
        #expect(keeper.kept.all.map(describe) == expected)
    }

    @Test("between two commits, one that changes nothing leaves the old and new values of the next one right")
    func commitsThatChangeNothing() async {
        // Changes nobody holds are refilled, and read their new state in the substance's slot;
        // a commit that changes nothing trades the slots without refilling them.
        let bus = Flux()
        let substance = Substance<CounterState>(bus: bus)
        let reader = ValueReader()
        substance.bind(reader)
        let text = outOfLineText
        for value in 1...12 {
            await substance.commit(counter: value, text: text(value))
            await substance.mixAndWait { $0.prop.text = text(value) }
        }
        let expected = (1...12).map { "\($0 - 1)->\($0) \($0 == 1 ? "" : text($0 - 1))->\(text($0))" }
        #expect(reader.seen.all == expected)
    }

    @Test("changes a middleware reads from a report's records are its to keep: later commits never refill them")
    func recordsReadByMiddlewareAreKept() async {
        let bus = Flux()
        let passer = PassingOnly()
        let keeper = RecordKeeper()
        bus.use(passer)  // has no didMix: the bus builds no report for it
        bus.use(keeper)
        let substance = CounterSubstance(bus: bus)
        substance.bind(ValueReader())
        for _ in 1...30 { bus.dispatch(mixerName(.increment)) }
        await bus.flush()
        #expect(passer.seen.count == 30)
        #expect(keeper.serials.all == Array(1...30))
        let kept = keeper.entries.all
        #expect(kept.count == 15)
        for (index, entry) in kept.enumerated() {
            let value = 2 * index + 1  // the odd serials were kept
            guard case .committed(let changes) = entry.result else {
                Issue.record("mix \(value) did not commit")
                continue
            }
            let change = changes.change("counter")
            #expect(change?.oldValue() as Int? == value - 1)
            #expect(change?.newValue() as Int? == value)
        }
        // The reader is an observer, not a reactor: counted apart.
        #expect(keeper.descriptions.all.first?.hasSuffix(": counter (0 reactors, 1 tool)") == true)
    }

    @Test("abort() restores every changed key exactly and nothing reacts")
    func abortRestores() async {
        let bus = Flux()
        let substance = CounterSubstance(bus: bus)
        let log = ChangeLog()
        substance.bind(log)
        bus.dispatch(mixerName(.increment))
        bus.dispatch(mixerName(.abortAfterChange))
        bus.dispatch(mixerName(.increment))
        await bus.flush()
        #expect(substance.state.counter == 2)
        #expect(substance.state.text == "")
        #expect(log.keys == [["counter"], ["counter"]])
    }

    @Test("a mixer that calls neither react nor abort is aborted and reported")
    func unresolvedMixer() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { reports.append($0.code) }
        let substance = CounterSubstance(bus: bus)
        bus.dispatch(mixerName(.forget))
        await bus.flush()
        #expect(substance.state.counter == 0)
        #expect(reports.all == [.mixerUnresolved])
    }

    @Test("react() after the mixer returned is ignored and reported")
    func lateReact() async throws {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { reports.append($0.code) }
        let substance = CounterSubstance(bus: bus)
        bus.dispatch(mixerName(.lateReact))
        await bus.flush()
        let react = try #require(substance.late.all.first)
        react()
        bus.perform { react() }
        await bus.flush()
        #expect(reports.all == [.mixerUnresolved, .mixerResolvedLate, .mixerResolvedLate])
    }

    @Test("mixers are registered once per substance however many observers bind it")
    func mixersOnce() async {
        let bus = Flux()
        let substance = CounterSubstance(bus: bus)
        let logs = (0..<10).map { _ in ChangeLog() }
        for log in logs { substance.bind(log) }
        bus.dispatch(mixerName(.increment))
        await bus.flush()
        #expect(substance.state.counter == 1)
        #expect(logs.allSatisfy { $0.keys == [["counter"]] })
        #expect(await bus.observerCount(of: mixerName(.increment)) == 1)
    }

    @Test("two unnamed instances of one class stay apart")
    func instancesApart() async {
        let bus = Flux()
        let first = Substance<CounterState>(bus: bus)
        let second = Substance<CounterState>(bus: bus)
        #expect(first.name() != second.name())
        let firstLog = ChangeLog()
        let secondLog = ChangeLog()
        first.bind(firstLog)
        second.bind(secondLog)
        await first.mixAndWait { $0.prop.counter = 1 }
        #expect(first.state.counter == 1)
        #expect(second.state.counter == 0)
        #expect(firstLog.keys == [["counter"]])
        #expect(secondLog.keys.isEmpty)
    }

    @Test("a substance nobody references is freed, with its mixers")
    func substanceFreed() async {
        let bus = Flux()
        weak var weakSubstance: CounterSubstance?
        do {
            let substance = CounterSubstance(bus: bus)
            weakSubstance = substance
            bus.dispatch(mixerName(.increment))
            await bus.flush()
            #expect(substance.state.counter == 1)
        }
        #expect(weakSubstance == nil)
        bus.dispatch(mixerName(.increment))
        await bus.flush()
        #expect(await bus.observerCount(of: mixerName(.increment)) == 0)
    }

    @Test("prop outside a transaction is reported and its writes are discarded; state inside one is reported")
    func propMisuse() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { reports.append($0.code) }
        let substance = Substance<CounterState>(bus: bus)
        substance.prop.counter = 7
        #expect(substance.state.counter == 0)
        await substance.mixAndWait { substance in
            substance.prop.counter = substance.state.counter + 1
        }
        #expect(substance.state.counter == 1)
        // A read outside a transaction sees the committed state, and is reported too.
        #expect(substance.prop.counter == 1)
        #expect(reports.all == [.propOutsideTransaction, .stateInsideTransaction, .propOutsideTransaction])
    }

    @Test(
        "prop read by address: two substances of one type read outside a transaction, and a property appended to itself inside one"
    )
    func propReadByAddress() async {
        let bus = Flux()
        bus.diagnostics = { _ in }
        let first = Substance<CounterState>(bus: bus)
        let second = Substance<CounterState>(bus: bus)
        await first.mixAndWait { $0.prop.text = "first, long enough to be stored out of line" }
        await second.mixAndWait { $0.prop.text = "second, long enough to be stored out of line" }
        // Both read this thread's one copy for the type, one after the other.
        #expect(
            first.prop.text + " / " + second.prop.text
                == "first, long enough to be stored out of line / second, long enough to be stored out of line")
        await first.mixAndWait { $0.prop.text.append($0.prop.text) }
        #expect(first.state.text == String(repeating: "first, long enough to be stored out of line", count: 2))
    }

    @Test("a mix that commits one substance three times: a middleware reading its report gets each commit's own values")
    func threeCommitsInOneMix() async {
        // The first commit's changes, lent to the report, are still held at the second commit:
        // they copy their new state out of the slot that the third one's working copy reuses.
        let bus = Flux()
        let keeper = RecordKeeper()
        bus.use(keeper)
        // No observer: the report's receipt is the commits' only reader, so each mix's first
        // commit refills the changes the last mix left, which then read their new state in the
        // substance's slot.
        let substance = Substance<CounterState>(bus: bus)
        for round in 0..<6 {
            bus.perform(mix: "twice") {
                for step in 1...3 {
                    substance.beginTransaction()
                    substance.prop.counter = 10 * round + step
                    substance.prop.text = outOfLineText(10 * round + step)
                    if let changes = substance.commitTransaction() { substance.deliver(changes, lock: nil) }
                }
            }
        }
        await bus.flush()
        // The keeper reads the records of the odd serials: rounds 0, 2 and 4.
        let values = keeper.entries.all.compactMap { entry -> String? in
            guard case .committed(let changes) = entry.result else { return nil }
            let old: Int? = changes.change("counter")?.oldValue()
            let new: Int? = changes.change("counter")?.newValue()
            let text = (changes.states?.new as? CounterState)?.text ?? "?"
            return "\(old ?? -1)->\(new ?? -1) \(text.prefix(8))"
        }
        #expect(
            values == [
                "0->1 text 1, ", "1->2 text 2, ", "2->3 text 3, ", "13->21 text 21,", "21->22 text 22,",
                "22->23 text 23,", "33->41 text 41,", "41->42 text 42,", "42->43 text 43,",
            ])
    }

    @Test("state is a consistent snapshot from any thread")
    func stateFromAnyThread() async {
        let bus = Flux()
        let substance = Substance<CounterState>(bus: bus)
        for n in 1...200 {
            bus.perform {
                substance.beginTransaction()
                substance.prop.counter = n
                substance.prop.text = "\(n)"
                _ = substance.commitTransaction()
            }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 {
                let snapshot = substance.state
                #expect(snapshot.text == (snapshot.counter == 0 ? "" : "\(snapshot.counter)"))
            }
        }
        await bus.flush()
        #expect(substance.state.counter == 200)
    }

    @Test("state read from other threads while observed commits go on is never torn and never goes back")
    func stateWhileObservedCommits() async {
        // With an observer, each commit is reduced and its changes refilled with the previous
        // state: the slot readers read must never be the one being refilled or written.
        let bus = Flux()
        let substance = Substance<CounterState>(bus: bus)
        let reader = ValueReader()
        substance.bind(reader)
        let text: @Sendable (Int) -> String = { n in
            n == 0 ? "" : "state number \(n), long enough to live out of line"
        }
        for n in 1...2_000 {
            bus.perform {
                substance.beginTransaction()
                substance.prop.counter = n
                substance.prop.text = text(n)
                if let changes = substance.commitTransaction() { substance.deliver(changes, lock: nil) }
            }
        }
        let problems = Recorder<String>()
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            var last = 0
            for _ in 0..<3_000 {
                let snapshot = substance.state
                if snapshot.text != text(snapshot.counter) { problems.append("torn at \(snapshot.counter)") }
                if snapshot.counter < last { problems.append("went back from \(last) to \(snapshot.counter)") }
                last = snapshot.counter
            }
        }
        await bus.flush()
        #expect(problems.all.isEmpty, "\(problems.all.prefix(3))")
        #expect(substance.state.counter == 2_000)
        #expect(reader.seen.count == 2_000)
    }

    @Test("forty observers bound, most unbound again: commits reach the bound ones in order, the rest are freed")
    func manyObserversComeAndGo() async {
        let bus = Flux()
        let substance = Substance<CounterState>(bus: bus)
        let order = Recorder<Int>()
        var observers: [OrderedObserver] = (0..<40).map { OrderedObserver(id: $0, order: order) }
        weak let firstUnbound = observers[1]
        for observer in observers { substance.bind(observer) }
        await substance.mixAndWait { $0.prop.counter = 1 }
        #expect(order.all == Array(0..<40))
        // Unbinding 28 of 40 compacts the list.
        let kept = Set((0..<40).filter { $0 % 8 == 0 || $0 % 5 == 0 })
        for observer in observers where !kept.contains(observer.id) { substance.unbind(observer) }
        order.removeAll()
        await substance.mixAndWait { $0.prop.counter = 2 }
        #expect(order.all == kept.sorted())
        #expect(await substance.observerCount() == kept.count)
        observers.removeAll { kept.contains($0.id) == false }
        #expect(firstUnbound == nil, "an unbound observer is released")
        for observer in observers { substance.unbind(observer) }
        order.removeAll()
        await substance.mixAndWait { $0.prop.counter = 3 }
        #expect(order.all.isEmpty)
    }

    @Test("nothing is reduced when nobody observes")
    func noObserversNoReduction() async {
        let bus = Flux()
        let substance = Substance<CounterState>(bus: bus)
        let result = Recorder<Bool>()
        bus.perform {
            substance.beginTransaction()
            substance.prop.counter = 1
            result.append(substance.commitTransaction() == nil)
        }
        await bus.flush()
        #expect(result.all == [true])
    }

    @Test("capture, rollback and commit of state")
    func rollback() async {
        let bus = Flux()
        let substance = Substance<CounterState>(bus: bus)
        let log = ChangeLog()
        substance.bind(log)
        await substance.mixAndWait { $0.prop.counter = 1 }
        substance.captureState()
        await substance.mixAndWait { $0.prop.counter = 2 }
        let done = Recorder<Int>()
        substance.rollbackState { done.append(substance.state.counter) }
        await bus.flush()
        #expect(substance.state.counter == 1)
        #expect(done.all == [1])
        #expect(log.keys.count == 3)
        // A given state, then commit: rollback does nothing.
        var given = CounterState()
        given.counter = 42
        substance.captureState(given)
        substance.commitState()
        substance.rollbackState()
        await bus.flush()
        #expect(substance.state.counter == 1)
        substance.captureState(given)
        substance.rollbackState()
        await bus.flush()
        #expect(substance.state.counter == 42)
    }
}
