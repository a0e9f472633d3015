import Dispatch
import FlaskLocking

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Backpressure: a producer faster than the bus waits for it, so that the queue, and the memory it
/// holds, stays bounded.
extension Flux {
    /// The default ``backlogLimit``: 40,000 work items. Under half the default
    /// ``backlogHighWaterMark``, because the limit counts the items queued and the bus may still be
    /// running a batch it took: producers that wait never reach the mark.
    public static let defaultBacklogLimit = 40_000

    /// How many work items may wait on the main lane before a producer that dispatches another
    /// waits for the bus to take them; nil: producers never wait.
    ///
    /// A dispatch that finds the lane at the limit is queued, then its thread sleeps until the bus
    /// takes items off the lane to run them (a chunk of up to 512 at a time). Only threads that
    /// can wait safely do:
    ///
    /// - **not the main thread, nor the main queue** (where the main actor runs), which never
    ///   wait: a UI dispatches at human speed, and a main thread that slept could be the one whose
    ///   work releases a lock the bus waits for;
    /// - **not a bus's own thread** (a handler or task that dispatches), which would wait for
    ///   itself or for a bus that waits for it;
    /// - **not a Swift concurrency task**, which must not block its thread: in async code,
    ///   `await bus.waitForRoom()` before dispatching, or `await Flask.apply`, which returns once
    ///   its mix has run.
    ///
    /// Those dispatch past the limit, and the ``backlogHighWaterMark`` diagnostic tells when the
    /// backlog grows anyway. Nor does a producer wait while a lock pauses the main lane: the
    /// thread that floods the bus may be the one that would release the lock (it would wait
    /// forever); the diagnostic reports the growth instead. A producer already waiting when a lock
    /// is taken is let go at once, for the same reason (a handler that hands its lock to the
    /// producer's queue).
    ///
    /// Memory then stays within the limit's worth of items and one chunk of 512 (the queued ones,
    /// and the batch the bus took to run; see docs/performance.md, "Backlog", for the bytes an
    /// item holds), whatever the producers do.
    public var backlogLimit: Int? {
        get { queue.withLock { $0.backlogLimit == .max ? nil : $0.backlogLimit } }
        set {
            let room = queue.withLock { q in
                q.backlogLimit = max(1, newValue ?? .max)
                return q.roomWanted ? q.makeRoom() : nil
            }
            if let room { wake(room) }
        }
    }

    /// Suspends while the main lane holds ``backlogLimit`` items or more, until the bus takes items
    /// off it to run them: what an async producer calls before dispatching, since a task never
    /// waits inside a dispatch.
    ///
    /// ```swift
    /// func importAll(_ lines: AsyncStream<String>, on bus: Flux) async {
    ///     for await line in lines {
    ///         await bus.waitForRoom()
    ///         bus.dispatch("imported", payload: ["line": line])
    ///     }
    /// }
    /// ```
    ///
    /// Returns at once while a lock pauses the lane (the task may be the one that releases it;
    /// the ``backlogHighWaterMark`` diagnostic reports the growth instead), and as soon as the
    /// task is cancelled.
    public func waitForRoom() async {
        // Numbered, so that a cancellation finds this task among the waiting ones.
        let number = queue.withLock { q -> UInt64? in
            guard q.makesProducersWait else { return nil }
            q.lastRoomWaiter &+= 1
            return q.lastRoomWaiter
        }
        guard let number else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = queue.withLock { q in
                    guard q.makesProducersWait, !Task.isCancelled else { return false }
                    q.tasksWaitingForRoom.append(FluxRoomWaiter(number: number, continuation: continuation))
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let cancelled = queue.withLock { q -> FluxRoomWaiter? in
                guard let index = q.tasksWaitingForRoom.firstIndex(where: { $0.number == number }) else { return nil }
                return q.tasksWaitingForRoom.remove(at: index)
            }
            cancelled?.continuation.resume()
        }
    }

    /// How many items wait on the main lane now (queued, or suspended by a lock): for tests and
    /// diagnostics.
    var waitingItemCount: Int { queue.withLock { $0.pendingMainCount } }

    /// How many producers wait for room now (threads and tasks): for tests and diagnostics.
    var producersWaitingForRoom: Int {
        queue.withLock { $0.threadsWaitingForRoom + $0.tasksWaitingForRoom.count }
    }

    /// Called after an enqueue found the main lane full: sleeps until the bus takes the lane's
    /// items, unless the calling thread must not wait (see ``backlogLimit``).
    @inline(never)
    func waitForRoomIfAllowed() {
        guard FluxProducerThread.mayWait else { return }
        let generation = queue.withLock { q -> UInt64? in
            guard q.makesProducersWait else { return nil }
            q.threadsWaitingForRoom += 1
            return q.roomGeneration
        }
        guard let generation else { return }
        roomGate.sleep(until: { queue.withLock { $0.roomGeneration } != generation })
        queue.withLock { $0.threadsWaitingForRoom -= 1 }
    }

    /// Wakes the producers `room` names: the sleeping threads, the suspended tasks.
    @inline(never)
    func wake(_ room: FluxQueue.Room) {
        if room.wakesThreads { roomGate.open() }
        for task in room.tasks { task.continuation.resume() }
    }
}

/// What the calling thread is, for whether a producer may wait on it (see ``Flux/backlogLimit``).
enum FluxProducerThread {
    /// Non-nil on a thread while it drains a bus.
    private static let drainingKey: pthread_key_t = {
        var key = pthread_key_t()
        let made = pthread_key_create(&key, nil)
        precondition(made == 0, "cannot make a thread-specific key: \(made)")
        return key
    }()

    /// Marks the calling thread as draining a bus, or no longer.
    static func setDraining(_ draining: Bool) {
        pthread_setspecific(drainingKey, threadSpecificValue(draining ? 1 : 0))
    }

    /// Whether a producer may sleep on the calling thread: not the main thread or the main queue,
    /// a bus's thread, nor a Swift concurrency task's.
    static var mayWait: Bool {
        pthread_getspecific(drainingKey) == nil && withUnsafeCurrentTask(body: { $0 == nil }) && !isMainQueue
            && !isMain
    }

    /// Whether the calling code, a task isolated to `isolation` that awaits a dispatch, may run the
    /// bus's work on its own thread: not on the main actor or the main thread, which keep bus work
    /// off the UI's thread.
    static func mayRunBusWork(isolation: (any Actor)?) -> Bool {
        if let isolation, isolation === MainActor.shared { return false }
        return !isMain
    }

    /// Marks the main queue, so that its blocks can tell where they run: after `dispatchMain()` on
    /// Linux, they run on a worker thread, not the main thread.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the calling code runs in a block of the main queue (the main actor's jobs included).
    private static var isMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// What each thread found it is, once: `1` the main thread, `2` another.
    private static let mainKey: pthread_key_t = {
        var key = pthread_key_t()
        let made = pthread_key_create(&key, nil)
        precondition(made == 0, "cannot make a thread-specific key: \(made)")
        return key
    }()

    /// Whether the calling thread is the process's main thread (when that cannot be told: yes, so
    /// that it never waits), found once per thread.
    private static var isMain: Bool {
        let known = threadSpecificNumber(pthread_getspecific(mainKey))
        if known != 0 { return known == 1 }
        let main = findIsMain()
        pthread_setspecific(mainKey, threadSpecificValue(main ? 1 : 2))
        return main
    }

    private static func findIsMain() -> Bool {
        #if canImport(Darwin)
            return pthread_main_np() != 0
        #else
            // `/proc/thread-self` links to `PID/task/TID`; the main thread's id is the process's.
            var buffer = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
            guard count > 0 else { return true }
            let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = link.split(separator: "/")
            return parts.count != 3 || parts[0] == parts[2]
        #endif
    }
}
