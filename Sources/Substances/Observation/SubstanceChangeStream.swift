import FlaskLocking
import FluxBus

/// The committed changes of a substance, as an asynchronous sequence: what
/// `Substance.changes(of:bufferingPolicy:)` returns.
///
/// ```swift
/// for await changes in substance.changes(of: ["counter"]) {
///     print(changes.change("counter")?.newValue() as Int? ?? 0)
/// }
/// ```
///
/// Like `AsyncStream`, it has one consumer: iterate it from one task at a time. Unlike it, the
/// consumer takes every element waiting at once, so a consumer that falls behind catches up at the
/// cost of an array read per element, not a lock and a task switch. The bus never waits for the
/// consumer: see the buffering policy for what is kept while it is behind.
///
/// The stream ends when the substance goes away. Stopping to iterate (breaking out of the loop,
/// or dropping the stream), or cancelling the consuming task, unbinds it from the substance.
public struct SubstanceChangeStream<Element: Sendable>: AsyncSequence, Sendable {
    /// What happens when the consumer is slower than the commits: the same choices as
    /// `AsyncStream`'s.
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    let consumer: StreamConsumer<Element>

    /// Iterates the stream; one at a time.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer)
    }

    /// The stream's iterator: it hands out, one by one, the batch it took at its last wait.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: StreamConsumer<Element>
        private var batch: [Element] = []
        private var index = 0

        init(consumer: StreamConsumer<Element>) {
            self.consumer = consumer
        }

        /// The next change; nil once the stream ended or the consuming task was cancelled.
        public mutating func next() async -> Element? {
            if index == batch.count {
                batch.removeAll(keepingCapacity: true)
                index = 0
                guard await consumer.core.take(into: &batch) else { return nil }
            }
            defer { index += 1 }
            return batch[index]
        }

        /// The next change, in the isolation of the caller (SE-0421): the same as ``next()``.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            if index == batch.count {
                batch.removeAll(keepingCapacity: true)
                index = 0
                guard await consumer.core.take(into: &batch, isolation: actor) else { return nil }
            }
            defer { index += 1 }
            return batch[index]
        }
    }
}
