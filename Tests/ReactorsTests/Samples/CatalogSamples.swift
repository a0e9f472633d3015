// The Swift sample of Sources/Reactors/Reactors.docc, compiled as it appears there
// (DocumentationSamplesTests checks that every block of the catalog is in a compiled file), and
// run. It imports Reactors and Substances alone, not FlaskAPI: what a user of the Reactors product
// has.
import FluxBus
import Reactors
import Substances
import Testing

struct CounterState: State {
    var counter = 0
}

@MainActor
final class CounterScreen {
    let counter = Substance<CounterState>()
    var label = "0"

    func start() {
        let reactor = ReactorManager.shared.reactor(attachedTo: self, mixing: [counter])
        reactor.mainActorHandler = { screen, reaction in  // on the main actor, in commit order
            reaction.on("counter") { change in
                screen.label = "\(change.newValue() as Int? ?? 0)"
            }
        }
        reactor.mix(counter) { $0.prop.counter += 1 }.react()
    }
}

@Suite("The Reactors catalog's sample, run")
struct ReactorsCatalogSampleTests {
    @MainActor
    @Test("the screen reacts on the main actor to the chain it mixes")
    func screen() async {
        let bus = Flux()
        let screen = Flux.withCurrent(bus) { CounterScreen() }
        screen.start()
        await bus.flushToMainActor()
        #expect(screen.label == "1")
        ReactorManager.shared.detach(from: screen)
    }
}
