// The seed README's "Substances", "Mixers" and "Reactor" samples, compiled as written except where
// noted (see README "Differences from the seed").
import FlaskAPI

// > State
struct AppState: State {
    enum prop: StateProp {
        case counter, text, title, asyncResult
    }
    var counter = 0
    var text = ""
    var title = ""
    var asyncResult = 0
}

// > Substance
class Feed: Substance<AppState>, @unchecked Sendable {}

// > Reactive Substance
enum Mixers: SubstanceMixer {
    case Login
}

class App: ReactiveSubstance<AppState, Mixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .Login) { (payload, react, abort) in
            self.prop.counter = self.prop.counter + 1
            react()
        }
    }
}

// > Manifest (Fluxor style)
enum EnvMixers: SubstanceMixer {
    case Login
    case Logout
    case AsyncAction
}

class Subs {
    static let appReactive = AppReactiveSubstance()
}

class AppReactiveSubstance: ReactiveSubstance<AppState, EnvMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .Login) { (payload, react, abort) in
            self.prop.title = "signed"
            react()
        }
        define(mix: .Logout) { (payload, react, abort) in
            self.prop.title = ""
            react()
        }
        define(mix: .AsyncAction) { (payload, react, abort) in
            self.prop.asyncResult = self.prop.asyncResult + 1
            react()
        }
    }
}

/// The owner of the seed's reactor samples (a `UIViewController` in the seed).
final class TestOwner: Sendable {}
