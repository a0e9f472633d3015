import FlaskAPI
import FlaskTestSupport
import Foundation
import Testing

/// Every sample of the seed README, run and checked against what the README says happens.
/// Serialized: the samples share `Flask.bus` and `Subs.appReactive`, as the README's do.
@Suite("Seed README samples", .serialized)
struct SeedReadmeTests {
    @Test("Substances and Reactor: a reactive substance's mixer reaches a reactor's handler")
    func reactorSample() async {
        let substance = App()
        let owner = TestOwner()
        let fulfilled = Recorder<Int>()
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)

        reactor.handler = { owner, reaction in
            reaction.on(
                AppState.prop.counter,
                { (change) in
                    fulfilled.append(change.newValue()!)
                })
        }
        Flask.substances(reactTo: Mixers.Login, payload: ["username": "foo"])
        await Flask.bus.flush()
        #expect(fulfilled.all == [1])
        #expect(substance.state.counter == 1)
        Flask.detachReactor(from: owner)
    }

    @Test("Redux style: a chain mixes counter and text, and both reactions fire")
    func reduxStyle() async {
        let log = Recorder<String>()
        let controller = ReduxViewController { log.append($0) }
        controller.viewDidLoad()
        await Flask.bus.flush()
        #expect(log.all == ["counter = 10", "text = changed!"])
        Flask.detachReactor(from: controller)
    }

    @Test("Fluxor style: a global mixer changes the shared reactive substance")
    func fluxorStyle() async {
        let log = Recorder<String>()
        let controller = FluxorViewController { log.append($0) }
        Flask.substances(reactTo: EnvMixers.Logout)
        await Flask.bus.flush()
        controller.viewDidLoad()
        await Flask.bus.flush()
        #expect(log.all == ["global title = signed"])
        #expect(Subs.appReactive.state.title == "signed")
        Flask.detachReactor(from: controller)
    }

    @Test("FlaskReactor protocol: one reactor bound to two substances")
    func protocolSample() async {
        let log = Recorder<String>()
        let controller = ProtocolViewController { log.append($0) }
        controller.viewDidLoad()
        Flask.getReactor(attachedTo: controller).mix(controller.substance) { $0.prop.counter = 3 }.react()
        await Flask.bus.flush()
        #expect(log.all == ["counter = 3"])
        Flask.detachReactor(from: controller)
    }

    @Test("Chain reactions, high-level and low-level API")
    func chains() async {
        let owner = TestOwner()
        let a = Feed()
        let b = Feed()
        let reactor = Flask.reactor(attachedTo: owner, mixing: [a, b])
        let seen = Recorder<String>()
        reactor.handler = { _, reaction in seen.append(reaction.keys.sorted().joined()) }
        chainHighLevel(owner: owner, substanceA: a, substanceB: b)
        await Flask.bus.flush()
        #expect(a.state.counter == 10 && b.state.text == "text")
        let c = Feed()
        let d = Feed()
        chainLowLevel(reactorInstance: reactor, substanceA: c, substanceB: d)
        await Flask.bus.flush()
        #expect(c.state.counter == 10 && d.state.text == "text")
        #expect(seen.all == ["counter", "text"])
        Flask.detachReactor(from: owner)
    }

    @Test("Locks: nothing mixes while the flux is paused")
    func locks() async {
        let feed = Feed()
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: feed)
        pauseTheFlux {
            reactor.mix(feed) { $0.prop.counter = 1 }.react()
            #expect(feed.state.counter == 0)
        }
        await Flask.bus.flush()
        #expect(feed.state.counter == 1)
        Flask.detachReactor(from: owner)
    }

    @Test("Async mixing with locks: the reaction releases its lock later, then the flux goes on")
    func asyncMixing() async {
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: Subs.appReactive)
        let feed = Feed()
        let before = Subs.appReactive.state.asyncResult
        await withCheckedContinuation { (released: CheckedContinuation<Void, Never>) in
            asyncRelease(reactor: reactor) { released.resume() }
            requestAsyncMix()
            reactor.mix(feed) { $0.prop.counter = 1 }.react()
        }
        await Flask.bus.flush()
        #expect(Subs.appReactive.state.asyncResult == before + 1)
        #expect(feed.state.counter == 1)
        #expect(Flask.bus.openLocks.isEmpty)
        Flask.detachReactor(from: owner)
    }

    @Test("NSObjects and dictionaries: FlaskRef state, FlaskDictRef nested keys")
    func objectsAndDictionaries() async {
        let objects = Substance<myState>()
        #expect(objects.state.object.object != nil)
        let owner = TestOwner()
        let substance = Substance<DictState>()
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        let seen = Recorder<String>()
        observeNestedKey(reactor: reactor) { seen.append($0) }
        assignValues(reactor: reactor, substance: substance)
        await Flask.bus.flush()
        #expect(seen.all == ["some"])
        #expect(substance.state.info?["nest.data"] as? String == "some")
        Flask.detachReactor(from: owner)
    }

    @Test("Archiving: a named substance restores what it archived; the four overrides are used")
    func archiving() async {
        let name = "readme-archive-\(UUID().uuidString)"
        let first = makeArchivedSubstance(uniqueName: name)
        #expect(first.archiveKey() == "Fx.1.\(name)")
        ChainReaction().mix(first) { $0.prop.counter = 77 }.react()
        await Flask.bus.flush()
        Archiver.shared.flush()
        let second = makeArchivedSubstance(uniqueName: name)
        #expect(second.state.counter == 77)
        second.purgeArchive()
        #expect(makeArchivedSubstance(uniqueName: name).state.counter == 0)
    }

    @Test("Internal state props are not reported as changes")
    func internalProps() async {
        let substance = Substance<InternalState>()
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        let seen = Recorder<[String]>()
        reactor.handler = { _, reaction in seen.append(reaction.keys) }
        reactor.mix(substance) { $0.prop._internal = "changed" }.react()
        reactor.mix(substance) {
            $0.prop._internal = "again"
            $0.prop.visible = 1
        }.react()
        await Flask.bus.flush()
        #expect(seen.all == [["visible"]])
        #expect(substance.state._internal == "again")
        Flask.detachReactor(from: owner)
    }

    @available(*, deprecated, message: "the seed's low-level applyMixer, deprecated for substances(reactTo:)")
    @Test("Low-level API")
    func lowLevel() async {
        let owner = TestOwner()
        // On a bus of its own: the sample purges the bus it runs on, and tests running beside this
        // one queue work on the shared bus.
        let bus = Flux(label: "seed low-level API")
        #expect(Flask.withBus(bus) { lowLevelAPI(owner: owner, substance: Feed()) } == 1)
        #expect(Flask.reactorManager.reactors(of: owner).isEmpty)
        await bus.flush()
    }
}
