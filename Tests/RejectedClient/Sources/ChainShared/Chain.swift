// A chain reaction built from two threads at once.
// Expected: "capture of 'chain' with non-Sendable type 'ChainReaction'".
import Dispatch
import FlaskAPI

struct CounterState: State {
    var counter = 0
}

func build(a: Substance<CounterState>, b: Substance<CounterState>) {
    let chain = ChainReaction().mix(a) { $0.prop.counter += 1 }
    DispatchQueue.global().async {
        chain.mix(b) { $0.prop.counter += 1 }
    }
    chain.react()
}
