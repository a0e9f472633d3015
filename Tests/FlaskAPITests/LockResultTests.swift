import FlaskAPI
import FlaskTestSupport
import Testing

/// docs/locks.md, "Writing the result of async work": the lock holder dispatches its result, then
/// releases; the result keeps its place in the FIFO, and nothing waits for itself.
@Suite("Locks: the result of async work")
struct LockResultTests {
    struct RequestState: State {
        var started = 0
        var result = 0
        /// The mixes in the order they ran.
        var ran: [String] = []
    }

    enum RequestMixers: SubstanceMixer {
        case start, other
    }

    @Test("the holder dispatches its result, then releases: it runs after what was queued first, and the bus goes on")
    func resultThenRelease() async {
        await Flask.withBus(Flux()) {
            let request = ReactiveSubstance<RequestState, RequestMixers>(name: "request") { define in
                define(mix: .start) { request, _, react, _ in
                    request.prop.started += 1
                    request.prop.ran.append("start")
                    react()
                }
                define(mix: .other) { request, _, react, _ in
                    request.prop.ran.append("other")
                    react()
                }
                define(RequestLoaded.self) { request, loaded, react, _ in
                    request.prop.result = loaded.value
                    request.prop.ran.append("result")
                    react()
                }
            }
            let owner = TestOwner()
            let reactor = Flask.reactor(attachedTo: owner, mixing: request)
            let lockTaken = Recorder<Bool>()
            // The async work's answer: opened by the test (the existing `Recorder` waits for it).
            let answered = Recorder<Bool>()
            let released = Recorder<Bool>()
            reactor.handler = { _, reaction in
                reaction.on("started") { _ in
                    let lock = reaction.onLock
                    lockTaken.append(lock != nil)
                    Task {
                        await answered.waitForCount(1)  // the async work
                        finishRequest(holding: lock, with: 42)
                        released.append(true)
                    }
                }
            }
            Flask.lock(withMixer: RequestMixers.start)
            // Queued behind the exclusive mix's lock, before the result.
            Flask.substances(reactTo: RequestMixers.other)
            await lockTaken.waitForCount(1)
            #expect(request.state.ran == ["start"], "nothing else mixes while the lock is held")
            answered.append(true)
            // Once the lock is released, a flush covers the result (awaited before, it would wait
            // behind the lock).
            await released.waitForCount(1)
            await Flask.bus.flush()
            #expect(lockTaken.all == [true])
            #expect(request.state.ran == ["start", "other", "result"])
            #expect(request.state.result == 42)
            #expect(Flask.bus.openLocks.isEmpty)
            Flask.detachReactor(from: owner)
        }
    }
}
