import FlaskAPI
import FlaskTestSupport
import Foundation
import Testing

private struct ListState: State {
    var items: [String] = []
    var log: [String] = []
    var refreshes = 0
}

private enum ListMixers: SubstanceMixer {
    case clear
    case twice
    case neither
    case rename(to: String)
}

private struct Add: FlaskAction {
    let item: String
}

/// An action without stored properties.
private struct Refresh: FlaskAction {}

/// Another action without stored properties, that no substance defines.
private struct Ping: FlaskAction {}

/// A list whose `clear` and `Add` bodies record their runs in `runs`.
private func todo(
    _ bus: Flux, name: String? = nil, runs: Recorder<String> = Recorder()
) -> ReactiveSubstance<ListState, ListMixers> {
    ReactiveSubstance<ListState, ListMixers>(name: name, bus: bus) { define in
        define(mix: .clear) { todo, _, react, _ in
            runs.append("clear")
            todo.prop.items = []
            react()
        }
        define(Add.self) { todo, add, react, abort in
            runs.append("add")
            guard !add.item.isEmpty else { return abort() }
            todo.prop.items.append(add.item)
            react()
        }
        define(Refresh.self) { todo, _, react, _ in
            todo.prop.refreshes += 1
            react()
        }
        define(mix: .twice) { todo, _, react, _ in
            todo.prop.log.append("first")
            react()
        }
        define(mix: .twice) { todo, _, _, abort in
            todo.prop.log.append("second")
            abort()
        }
        define(mix: .neither) { todo, _, _, _ in
            todo.prop.log.append("never committed")
        }
    }
}

@Suite("Reactive substances made without a subclass")
struct DefinedMixerTests {
    @Test("mixers and actions defined at creation react, typed, in FIFO order; a dispatch runs only its body")
    func reacts() async {
        let bus = Flux()
        let runs = Recorder<String>()
        let list = todo(bus, runs: runs)
        Flask.substances(reactTo: Add(item: "tea"), on: bus)
        Flask.substances(reactTo: Add(item: "cake"), on: bus)
        Flask.substances(reactTo: ListMixers.clear, on: bus)
        Flask.substances(reactTo: Add(item: "jam"), on: bus)
        await bus.flush()
        #expect(list.state.items == ["jam"])
        #expect(runs.all == ["add", "add", "clear", "add"])
    }

    @Test("an awaited dispatch tells a commit and an abort apart; reactors see the commit")
    func awaited() async {
        let bus = Flux()
        let list = todo(bus)
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: list)
        let seen = Recorder<[String]>()
        reactor.handler = { _, reaction in
            reaction.on("items") { change in seen.append(change.newValue() ?? []) }
        }
        let committed = await Flask.apply(Add(item: "tea"), on: bus)
        #expect(committed.changes.map(\.keys) == [["items"]])
        #expect(await Flask.apply(Add(item: ""), on: bus).wasAborted)
        #expect(seen.all == [["tea"]])
        withExtendedLifetime(reactor) {}
    }

    @Test("an action without stored properties arrives as the value dispatched")
    func emptyAction() async {
        let bus = Flux()
        let list = todo(bus)
        for _ in 0..<3 { Flask.substances(reactTo: Refresh(), on: bus) }
        await bus.flush()
        #expect(list.state.refreshes == 3)
    }

    @Test("an action's type is never made into a value: its name dispatched alone runs no body, and is reported")
    func nameAlone() async {
        let bus = Flux()
        let codes = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { codes.append($0.code) }
        let list = todo(bus)
        bus.dispatch(Refresh.busName)
        await bus.flush()
        #expect(list.state.refreshes == 0)
        #expect(codes.all == [.substanceMisuse])
        // Once a value was dispatched, the bare name still carries none.
        Flask.substances(reactTo: Refresh(), on: bus)
        bus.dispatch(Refresh.busName)
        await bus.flush()
        #expect(list.state.refreshes == 1)
        #expect(codes.all == [.substanceMisuse, .substanceMisuse])
    }

    @Test("an action without stored properties keeps its value when a middleware renames its mix")
    func emptyActionRenamed() async {
        final class ToRefresh: FluxMiddleware {
            func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
                event.mixer == Refresh.busName ? .replace(Ping.busName, payload: nil) : .pass
            }
        }
        let bus = Flux()
        let pings = Recorder<Bool>()
        let owner = TestOwner()
        bus.observe(Ping.busName, owner: owner) { _, event in
            pings.append(event.value(as: Refresh.self) != nil && event.value(as: Ping.self) == nil)
        }
        bus.use(ToRefresh())
        Flask.substances(reactTo: Refresh(), on: bus)
        await bus.flush()
        #expect(pings.all == [true], "the renamed mix still carries the Refresh that was dispatched")
        withExtendedLifetime(owner) {}
    }

    @Test("a mixer defined twice runs both bodies in order, each its own transaction")
    func definedTwice() async {
        let bus = Flux()
        let list = todo(bus)
        await Flask.apply(ListMixers.twice, on: bus)
        #expect(list.state.log == ["first"], "the second body aborted its own transaction only")
    }

    @Test("a body that returns without react() or abort() is aborted and reported")
    func unresolved() async {
        let bus = Flux()
        let codes = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { codes.append($0.code) }
        let list = todo(bus)
        codes.removeAll()
        await Flask.apply(ListMixers.neither, on: bus)
        #expect(list.state.log.isEmpty)
        #expect(codes.all == [.mixerUnresolved])
    }

    @Test("a case with associated values is reported where it is defined")
    func valuedCase() {
        let bus = Flux()
        let codes = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { codes.append($0.code) }
        _ = ReactiveSubstance<ListState, ListMixers>(bus: bus) { define in
            define(mix: .rename(to: "x")) { _, _, react, _ in react() }
        }
        #expect(codes.all == [.mixerWithValues])
    }

    @Test("the bodies do not keep the substance: freed when nobody holds it, later dispatches reach nobody")
    func freed() async {
        let bus = Flux()
        weak var weakList: ReactiveSubstance<ListState, ListMixers>?
        do {
            let list = todo(bus, name: "freed")
            weakList = list
            await Flask.apply(Add(item: "tea"), on: bus)
            #expect(list.state.items == ["tea"])
        }
        // The mix's work item may still be let go on the bus's thread after the awaited apply
        // resumed (a serial run of the suite found it so): a flush comes after the batch that ran
        // it is emptied.
        await bus.flush()
        #expect(weakList == nil)
        #expect(await Flask.apply(Add(item: "cake"), on: bus).reachedNobody)
    }

    @Test("a subclass may add definitions beside the seed's defineMixers()")
    func withSubclass() async {
        let bus = Flux()
        let list = Counted(bus: bus) { define in
            define(Add.self) { todo, add, react, _ in
                todo.prop.items.append(add.item)
                react()
            }
        }
        await Flask.apply(Add(item: "tea"), on: bus)
        await Flask.apply(ListMixers.clear, on: bus)
        #expect(list.state.items == [])
        #expect(list.state.log == ["cleared"])
    }
}

private final class Counted: ReactiveSubstance<ListState, ListMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .clear) { _, react, _ in
            self.prop.items = []
            self.prop.log.append("cleared")
            react()
        }
    }
}
