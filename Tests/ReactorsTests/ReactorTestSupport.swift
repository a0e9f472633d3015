import FluxBus
import Reactors
import Substances

struct AppState: State {
    enum prop: StateProp { case counter, text, asyncResult }
    var counter = 0
    var text = ""
    var asyncResult = 0
    var info = Info()

    struct Info: Codable, Equatable {
        var counter = 0
        var label = ""
    }
}

enum EnvMixers: SubstanceMixer {
    case increment, nothing, asyncAction
}

final class AppSubstance: ReactiveSubstance<AppState, EnvMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .increment) { _, react, _ in
            self.prop.counter += 1
            react()
        }
        define(mix: .nothing) { _, react, _ in react() }
        define(mix: .asyncAction) { payload, react, _ in
            self.prop.asyncResult = payload?["value"] as? Int ?? 1
            react()
        }
    }
}

final class TestOwner: Sendable {}

func name(_ mixer: EnvMixers) -> FluxMixerName {
    mixer.busName
}

extension Flux {
    func settleExclusive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            performExclusive { continuation.resume() }
        }
    }
}
