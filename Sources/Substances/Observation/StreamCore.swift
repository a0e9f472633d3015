import FlaskLocking
import FluxBus

/// Where the bus leaves elements and the consumer takes them, under one lock.
///
/// A consumer that waits is not woken at each element: the bus wakes it when it lets go of what it
/// holds (the end of its batch, at most 128 work items later, before a task: see
/// `FluxOwnerHolds`), so a consumer as fast as the bus takes a batch per wake-up rather than
/// trading a task switch for every element.
final class StreamCore<Element: Sendable>: FluxDeferredWake, Sendable {
    private struct State {
        var pending: [Element] = []
        /// The consumer, suspended until there is something to take (or the end).
        var waiter: UnsafeContinuation<Void, Never>?
        /// Whether the bus will wake the waiter when it lets go.
        var wakeScheduled = false
        var finished = false
        var onFinish: @Sendable () -> Void = {}
    }

    /// What a ``SubstanceChangeStream/BufferingPolicy`` says, read without its generic type.
    enum Buffering {
        case unbounded
        case newest(Int)
        case oldest(Int)
    }

    private let state = LockedValue(State())
    private let buffering: Buffering
    private let bus: Flux
    /// Called once when the stream ends, from whichever side ended it; set before the stream is
    /// shared.
    var onFinish: @Sendable () -> Void {
        get { state.withLock { $0.onFinish } }
        set { state.withLock { $0.onFinish = newValue } }
    }

    init(policy: SubstanceChangeStream<Element>.BufferingPolicy, bus: Flux) {
        switch policy {
        case .bufferingNewest(let limit): buffering = .newest(limit)
        case .bufferingOldest(let limit): buffering = .oldest(limit)
        case .unbounded: buffering = .unbounded
        @unknown default: buffering = .unbounded
        }
        self.bus = bus
    }

    /// Leaves `element` for the consumer (on the bus); a waiting consumer is woken when the bus
    /// lets go.
    func yield(_ element: Element) {
        let scheduleWake: Bool = state.withLock { state in
            guard !state.finished else { return false }
            switch buffering {
            case .unbounded:
                break
            case .newest(let limit):
                guard limit > 0 else { return false }
                if state.pending.count == limit { state.pending.removeFirst() }
            case .oldest(let limit):
                if state.pending.count >= limit { return false }
            }
            state.pending.append(element)
            guard state.waiter != nil, !state.wakeScheduled else { return false }
            state.wakeScheduled = true
            return true
        }
        if scheduleWake { bus.wakeWhenLettingGo(self) }
    }

    /// Wakes the waiting consumer (on the bus, when it lets go).
    func wake() {
        let waiter = state.withLock { state in
            state.wakeScheduled = false
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Ends the stream: the consumer takes what is pending, then gets nil. Idempotent.
    func finish() {
        let (waiter, wasFinished) = state.withLock { state in
            defer {
                state.finished = true
                state.waiter = nil
            }
            return (state.waiter, state.finished)
        }
        waiter?.resume()
        if !wasFinished { onFinish() }
    }

    /// Moves every pending element into `batch` (empty), waiting for one if there is none. Returns
    /// false when the stream has ended (or the task was cancelled) and nothing is left.
    func take(into batch: inout [Element], isolation actor: isolated (any Actor)? = #isolation) async -> Bool {
        if takePending(into: &batch) { return true }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let waits: Bool = state.withLock { state in
                    if !state.pending.isEmpty || state.finished { return false }
                    precondition(
                        state.waiter == nil, "a change stream has one consumer: iterate it from one task at a time")
                    state.waiter = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            finish()
        }
        // Woken with elements, or at the end: what is pending is still handed out first.
        return takePending(into: &batch)
    }

    /// Moves the pending elements into `batch`; whether there were any.
    private func takePending(into batch: inout [Element]) -> Bool {
        state.withLock { state in
            guard !state.pending.isEmpty else { return false }
            swap(&state.pending, &batch)
            return true
        }
    }
}
