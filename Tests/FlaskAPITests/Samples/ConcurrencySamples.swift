// docs/concurrency.md, compiled as it appears there.
import FlaskAPI
import Observation

func signIn(as user: String) async -> Bool {
    let outcome = await Flask.apply(Login(user: user))
    return outcome.wasApplied && !outcome.changes.isEmpty
}

func rename(to name: String) async -> Bool {
    await Flask.apply(ProfileMixers.rename, payload: ["name": name]).wasApplied
}

func resetCounter(_ counter: Substance<CounterState>) async -> MixOutcome {
    await ChainReaction()
        .mix(counter) { $0.prop.counter = 0 }
        .reactAndWait()
}

func logUsers(of session: Session) async {
    for await change in session.changes(of: \.user) {
        print("user: \(change.oldValue ?? "nobody") -> \(change.newValue ?? "nobody")")
    }
}

func showLatestCount(of counter: Substance<CounterState>, show: @escaping @Sendable (Int) -> Void) async {
    for await changes in counter.changes(of: ["counter"], bufferingPolicy: .bufferingNewest(1)) {
        if let count: Int = changes.change("counter")?.newValue() { show(count) }
    }
}

@MainActor
func keepWatching(_ view: SubstanceObservation<CounterState>, show: @escaping @MainActor (Int) -> Void) {
    withObservationTracking {
        show(view.counter)
    } onChange: {
        Task { @MainActor in keepWatching(view, show: show) }
    }
}

@MainActor
func watchCounter(of counter: Substance<CounterState>) -> SubstanceObservation<CounterState> {
    let view = counter.observable()
    withObservationTracking {
        _ = view.counter
    } onChange: {
        print("the counter changed")
    }
    return view
}

@MainActor
final class CounterLabel {
    var text = ""

    func attach(to counter: Substance<CounterState>) {
        let reactor = Flask.reactor(attachedTo: self, mixing: counter)
        reactor.mainActorHandler = { label, reaction in
            reaction.on(\CounterState.counter) { change in label.text = "\(change.newValue)" }
            reaction.onLock?.release()
        }
    }
}
