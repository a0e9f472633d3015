// The Swift samples of Sources/FlaskTesting/FlaskTesting.docc, compiled as they appear there
// (DocumentationSamplesTests checks that every block of the catalog is in a compiled file); their
// tests run with the others. They import FlaskTesting and the core modules, not FlaskAPI: what a
// test target that adds the FlaskTesting product has.
import Archive
import FlaskTesting
import FluxBus
import Substances
import Testing

enum CartMixers: SubstanceMixer {
    case add
}

struct CartState: State {
    var items: [String] = []
}

func makeCart(on bus: Flux) -> ReactiveSubstance<CartState, CartMixers> {
    ReactiveSubstance<CartState, CartMixers>(name: "cart", bus: bus) { define in
        define(mix: .add) { cart, payload, react, abort in
            guard let item = payload?["item"] as? String else { return abort() }
            cart.prop.items.append(item)
            react()
        }
    }
}

@Test("adding an item changes the items, and nothing else")
func addItem() async {
    let bus = Flux()
    let cart = makeCart(on: bus)
    let probe = ChangeProbe(cart)
    bus.dispatch(CartMixers.add, payload: ["item": "tea"])
    let mismatch = await probe.mismatch(with: [.change("items", from: [], to: ["tea"])])
    #expect(mismatch == nil)
}

enum DraftMixers: SubstanceMixer {
    case write
}

struct DraftState: State {
    var text = ""
}

@Test("a draft is written two seconds after its last change")
func draftIsArchived() async {
    let store = InMemoryArchiveStore()
    let clock = ManualArchiveClock()
    let archiver = Archiver(store: store, clock: clock)
    let bus = Flux()
    let draft = ReactiveSubstance<DraftState, DraftMixers>(
        name: "draft", archive: true, archiveSettings: ArchiveSettings(delay: 2, archiver: archiver), bus: bus
    ) { define in
        define(mix: .write) { draft, payload, react, _ in
            draft.prop.text = payload?["text"] as? String ?? ""
            react()
        }
    }
    bus.dispatch(DraftMixers.write, payload: ["text": "hello"])
    await bus.flush()
    #expect(store.writes.isEmpty)
    clock.advance(by: .seconds(2))
    archiver.waitForWritesInProgress()
    #expect(store.writes == [draft.archiveKey()])
}
