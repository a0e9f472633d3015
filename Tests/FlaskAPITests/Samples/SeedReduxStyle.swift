// The seed README's "Redux Style" sample. `UIViewController` is a plain class here (Linux has no
// UIKit), `print` goes to `log`, and `viewDidLoad` is called by the test.
import FlaskAPI

final class ReduxViewController: FlaskReactor, Sendable {
    let substance = Feed()
    let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    func flaskReactions(reaction: FlaskReaction) {
        reaction.on(AppState.prop.counter) { (change) in
            log("counter = \(substance.state.counter)")
        }
        reaction.on(AppState.prop.text) { (change) in
            log("text = \(substance.state.text)")
        }
    }

    func viewDidLoad() {
        Flask.attachReactor(to: self, mixing: [substance])
        produceTestReaction()
    }

    func produceTestReaction() {
        Flask.getReactor(attachedTo: self)
            .mixing(self.substance) { (substance) in
                substance.prop.counter = 10
            }.with(self.substance) { (substance) in
                substance.prop.text = "changed!"
            }.andReact()
    }
}
