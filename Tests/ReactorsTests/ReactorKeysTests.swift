import FlaskTestSupport
import FluxBus
import Foundation
import Reactors
import Substances
import Testing

/// A state with a dictionary-like property, and one whose custom coding keys put it on the Codable
/// path, for the declared-keys filter.
private struct DocumentState: State {
    var title = ""
    var body = ""
    var meta: FlaskDictRef?
}

private struct RenamedState: State {
    var title = ""
    var body = ""

    enum CodingKeys: String, CodingKey {
        case title = "t"
        case body = "b"
    }
}

@Suite("Reactors: declared keys")
struct ReactorKeysTests {
    @Test("a reactor with keys is called only for commits that change one of them, or a key below one")
    func filtersByKey() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<[String]>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.keys = ["counter", "info"]
        reactor.handler = { _, reaction in calls.append(reaction.keys.sorted()) }
        reactor.mix(substance) { $0.prop.text = "a" }.react()  // not declared: skipped
        reactor.mix(substance) { $0.prop.counter = 1 }.react()
        reactor.mix(substance) { $0.prop.info.label = "x" }.react()  // below "info"
        reactor.mix(substance) {
            $0.prop.text = "b"
            $0.prop.asyncResult = 2
        }.react()  // skipped
        await bus.flush()
        #expect(calls.all == [["counter"], ["info", "info.label"]])
    }

    @Test("a declared nested key is matched exactly, not by its parent's siblings")
    func nestedKey() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let calls = Recorder<String>()
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.keys = ["info.counter"]
        reactor.handler = { _, reaction in calls.append(reaction.keys.sorted().joined(separator: ",")) }
        reactor.mix(substance) { $0.prop.info.label = "x" }.react()
        reactor.mix(substance) { $0.prop.info.counter = 1 }.react()
        await bus.flush()
        #expect(calls.all == ["info,info.counter"])
    }

    @Test("a key below a dictionary property counts as the property")
    func dictionarySubKey() async {
        let bus = Flux()
        let substance = Substance<DocumentState>(bus: bus)
        let calls = Recorder<[String]>()
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.keys = ["meta.author"]
        reactor.handler = { _, reaction in calls.append(reaction.keys.sorted()) }
        reactor.mix(substance) { $0.prop.title = "t" }.react()
        reactor.mix(substance) { $0.prop.meta = FlaskDictRef(["author": "ada"]) }.react()
        await bus.flush()
        #expect(calls.all == [["meta", "meta.author"]])
    }

    @Test("a commit that hands over a lock reaches the handler even if its keys did not change")
    func lockAlwaysDelivered() async {
        let bus = Flux()
        let substance = AppSubstance(bus: bus)
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.keys = ["text"]
        reactor.handler = { _, reaction in reaction.onLock?.release() }
        let lock = bus.lock(withMixer: name(.increment))
        bus.dispatch(name(.increment))
        await bus.flush()
        #expect(lock.isReleased)
        #expect(substance.state.counter == 2)
    }

    @Test("keys = nil gives the reactor every commit again")
    func resetKeys() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<[String]>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.keys = ["counter"]
        reactor.handler = { _, reaction in calls.append(reaction.keys) }
        reactor.mix(substance) { $0.prop.text = "a" }.react()
        // Keys take effect before any item that has not started: let the first mix run first.
        await bus.flush()
        reactor.keys = nil
        reactor.mix(substance) { $0.prop.text = "b" }.react()
        await bus.flush()
        #expect(reactor.keys == nil)
        #expect(calls.all == [["text"]])
    }

    @Test("a key none of the reactor's substances has is reported; one that another substance has is not")
    func unknownKeys() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let app = Substance<AppState>(bus: bus)
        let document = Substance<DocumentState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [app, document])
        reactor.keys = ["counter", "title", "no.such.key"]
        reactor.handler = { _, reaction in
            reaction.at(app)?.on("counter") { _ in calls.append("counter") }
            reaction.at(document)?.on("title") { _ in calls.append("title") }
        }
        reactor.mix(document) { $0.prop.title = "t" }.react()
        reactor.mix(app) { $0.prop.counter = 1 }.react()
        reactor.mix(app) { $0.prop.text = "ignored" }.react()
        await bus.flush()
        #expect(calls.all == ["title", "counter"])
        #expect(reports.all.map(\.code) == [.unknownKey])
        #expect(reports.all.first?.message.contains("no.such.key") == true)
    }

    @Test("a state on the Codable path is not filtered: every commit reaches the handler")
    func codablePathNotFiltered() async {
        let bus = Flux()
        let substance = Substance<RenamedState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<[String]>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.keys = ["t"]
        reactor.handler = { _, reaction in calls.append(reaction.keys) }
        reactor.mix(substance) { $0.prop.body = "x" }.react()
        await bus.flush()
        #expect(calls.all == [["b"]])
    }

    @Test("setting keys on a detached reactor does not bind it again")
    func detachedStaysDetached() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
        reactor.handler = { _, _ in Issue.record("a detached reactor must not react") }
        reactor.detach()
        reactor.keys = ["counter"]
        await bus.settleExclusive()
        #expect(await substance.observerCount() == 0)
        reactor.mix(substance) { $0.prop.counter = 1 }.react()
        await bus.flush()
    }

    @Test("reactors with different keys on one substance each see only their own")
    func manyReactors() async {
        let bus = Flux()
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let calls = Recorder<String>()
        var reactors: [Reactor<TestOwner>] = []
        for key in ["counter", "text", "asyncResult"] {
            let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [substance])
            reactor.keys = [key]
            reactor.handler = { _, _ in calls.append(key) }
            reactors.append(reactor)
        }
        reactors[0].mix(substance) { $0.prop.text = "a" }.react()
        reactors[0].mix(substance) { $0.prop.asyncResult = 1 }.react()
        reactors[0].mix(substance) { $0.prop.counter = 1 }.react()
        await bus.flush()
        #expect(calls.all == ["text", "asyncResult", "counter"])
    }
}
