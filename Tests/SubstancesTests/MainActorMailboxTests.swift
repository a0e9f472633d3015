import Dispatch
import FlaskTestSupport
import FluxBus
import Substances
import Testing

@Suite("Main-actor mailbox: what buses send to the main actor")
struct MainActorMailboxTests {
    @MainActor
    @Test("jobs run on the main actor in the order each sender sent them, every one once")
    func orderPerSender() async {
        let mailbox = MainActorMailbox()
        let seen = Recorder<(Int, Int)>()
        let senders = 4
        let perSender = 2_000
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: senders) { sender in
                    for n in 0..<perSender {
                        mailbox.send {
                            MainActor.preconditionIsolated()
                            seen.append((sender, n))
                        }
                    }
                }
                mailbox.send { done.resume() }
            }
        }
        let all = seen.all
        #expect(all.count == senders * perSender)
        for sender in 0..<senders {
            #expect(all.filter { $0.0 == sender }.map(\.1) == Array(0..<perSender))
        }
    }

    @MainActor
    @Test("a batch runs what was sent before it started, then gives the main queue back")
    func batchesYield() async {
        let mailbox = MainActorMailbox()
        let order = Recorder<String>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            mailbox.send {
                order.append("first")
                // Queued on the main queue during the batch: it runs before the next batch.
                DispatchQueue.main.async { order.append("app's own work") }
                mailbox.send {
                    order.append("sent during the batch")
                    done.resume()
                }
            }
        }
        #expect(order.all == ["first", "app's own work", "sent during the batch"])
    }
}
