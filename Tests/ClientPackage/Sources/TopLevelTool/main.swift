// A command-line tool's top-level code, as a user writes it: the calls that must wait do wait.
// CI builds it with warnings as errors and runs it.
import FlaskAPI
import FlaskTools

struct CounterState: State {
    var counter = 0
}

let bus = Flux(label: "tool")
let counter = Substance<CounterState>(bus: bus)
let history = SubstanceHistory(of: counter)
for value in 1...3 { await ChainReaction(bus: bus).mix(counter) { $0.prop.counter = value }.reactAndWait() }

// `await history.undo()` must be the waiting one here too (top-level code once chose the
// completion-handler overload, and went on before the undo).
let undone: Bool = await history.undo()
precondition(undone && counter.state.counter == 2, "undo did not wait: counter is \(counter.state.counter)")
let redone: Bool = await history.redo()
precondition(redone && counter.state.counter == 3, "redo did not wait: counter is \(counter.state.counter)")

// A fire-and-forget dispatch just before a tool ends: flush the bus, or the mix may never run.
ChainReaction(bus: bus).mix(counter) { $0.prop.counter = 10 }.react()
await bus.flush()
precondition(counter.state.counter == 10)
print("TopLevelTool: ok")
