import FlaskTools
import FlyingFox
import Foundation

/// Tells a page, over a WebSocket, that the journal has new mixes: the serial of the newest, each
/// time it changes. The page then asks for them as it would have at its next poll, at once.
///
/// It looks at the journal's newest serial every 100 ms, off the bus (a lock and a read), rather
/// than hearing of each mix from the bus: the bus pays nothing for a connected page, a burst of
/// mixes is one message, and a busy app's page asks at most ten times a second.
struct LiveSignal: WSMessageHandler {
    let journal: MixJournal

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let journal = journal
        // Read now, not when the task starts: a mix recorded in between is told too.
        let newestWhenOpened = journal.newestSerial
        return AsyncStream { continuation in
            let watching = Task {
                var told = newestWhenOpened
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                    let newest = journal.newestSerial
                    if newest != told, let newest {
                        told = newest
                        continuation.yield(.text(String(newest)))
                    }
                }
            }
            // The page closed the socket: stop watching.
            let listening = Task {
                for await _ in client {}
                watching.cancel()
                continuation.finish()
            }
            continuation.onTermination = { _ in
                watching.cancel()
                listening.cancel()
            }
        }
    }
}
