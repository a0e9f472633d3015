// The `///` samples of Sources/FlaskAPI, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a file of this folder).
// `CounterScreen`, `Subs`, `EnvMixers` and `Feed` are the README samples'; nothing calls this.
import FlaskAPI

// Flask
@MainActor
private func useTheFacade(screen: CounterScreen, feed: Feed) {
    Flask.attachReactor(to: screen, mixing: [Subs.appReactive])
    Flask.substances(reactTo: EnvMixers.Login, payload: ["username": "foo"])
    Flask.getReactor(attachedTo: screen)
        .mixing(feed) { $0.prop.counter = 10 }
        .andReact()
}
