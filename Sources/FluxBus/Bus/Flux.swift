import Dispatch
import FlaskLocking
import Synchronization

/// The single serial bus of Flask: every mix and bus task is a work item run in
/// FIFO order, one at a time, on the bus's own serial executor.
///
/// There are two lanes:
/// - the **main lane** runs items in the order they were enqueued; it pauses while any
///   ``FluxLock`` is held;
/// - the **exclusive lane** runs even while the main lane is paused, ahead of the main lane. It
///   carries exclusive mixes (``lock(withMixer:payload:autorelease:fileID:line:function:)``) and bookkeeping tasks
///   (``performExclusive(_:)``), such as registering observers.
///
/// Enqueueing is safe from any thread and never blocks on the work: the caller appends to a buffer
/// under a short mutex and returns. The executor swaps out the whole pending batch and runs it
/// outside the mutex, so a busy bus keeps draining without a queue hop per item. Work enqueued from
/// inside a running item is queued behind it; the bus is never re-entered.
///
/// ```swift
/// let bus = Flux(label: "my.bus")
/// let owner = Owner()
/// bus.observe("refresh", owner: owner) { owner, event in
///     owner.refresh(with: event.payload)
/// }
/// bus.dispatch("refresh", payload: ["page": 2])
/// ```
public final class Flux: Sendable {
    /// The shared bus, used unless another is given.
    public static let shared = Flux(label: "flask.flux.shared", drainSchedule: nil, isShared: true)

    /// The label of the bus's executor queue.
    public let label: String

    let executor: DispatchQueue
    /// Where drains run, when the bus was made to drain elsewhere than on `executor` (see
    /// ``init(label:drainingOn:)``).
    let drainSchedule: (@Sendable (_ drain: @escaping @Sendable () -> Void) -> Void)?
    let queue = LockedValue(FluxQueue())
    /// Bumped whenever something must interrupt a running batch, read once per item while
    /// draining: by one for a lock taken or exclusive work enqueued, which stop a main-lane batch
    /// (both take effect before its next item); by ``purgeStep`` for a purge, which stops any
    /// batch (its rest is dropped). An exclusive-lane batch looks at purges only: a lock does not
    /// pause it, and new exclusive work runs after it anyway, so stopping it would only put its
    /// rest back in front of the lane, a copy of the rest after every item. (After 2^32 locks, a
    /// carry into the purge bits stops an exclusive batch for nothing: harmless, it resumes.)
    let interrupts = Atomic<UInt64>(0)
    /// How many items the drain has run: written by the bus only, read by the backlog count.
    let itemsRun = Atomic<UInt64>(0)
    static let purgeStep: UInt64 = 1 << 32
    /// Which thread drains the bus now: what ``isCurrent`` asks, and what the debug checks of the
    /// state confined to this bus (``BusConfined``) compare with.
    @usableFromInline let drainer: FluxDrainer
    private let observerSerial = Atomic<UInt64>(0)
    private let diagnosticsHandler: LockedValue<DiagnosticsHandler>
    /// The observers of named mixers; confined to the bus.
    let registry: FluxObserverRegistry
    /// The middleware and the receipts of mixes; confined to the bus.
    let confined: FluxConfinedState
    /// The owners the bus delivered to in the items it is running, held until it lets go of them
    /// (see ``FluxOwnerHolds``); confined to the bus.
    let ownerHolds: FluxOwnerHolds
    /// Objects the bus keeps for the modules built on it, one per type (see
    /// ``clientObject(_:make:)``).
    private let clientObjects = LockedValue<[ObjectIdentifier: any AnyObject & Sendable]>([:])
    /// Where producers sleep while the main lane is full (see ``backlogLimit``).
    let roomGate = ThreadGate()

    /// Numbers the buses made without a label, so that diagnostics tell them apart.
    private static let unlabeledCount = Atomic<Int>(0)

    /// Creates an independent bus, for isolation and tests. Without a `label`, it is named
    /// `flask.flux.1`, `flask.flux.2`, … in the order buses are made, so that diagnostics and
    /// lock reports say which bus they are about.
    public convenience init(label: String? = nil) {
        self.init(label: label, drainSchedule: nil, isShared: false)
    }

    /// Creates an independent bus whose drains run where `schedule` runs them, rather than on a
    /// serial `DispatchQueue` of its own: inside a task, say, so that its work sees the task's
    /// task-local values (FlaskTesting's `.ownBus` runs a test's bus in a task of the test, so that
    /// an `Issue.record` in a handler is the test's).
    ///
    /// - Parameters:
    ///   - label: as for ``init(label:)``.
    ///   - schedule: called with a drain each time the bus has work and is idle: it must run the
    ///     drain once, soon, and not on the calling thread (which may hold the bus's producer, or be
    ///     the bus's own thread). Drains never overlap: the next is scheduled after the last returns.
    public convenience init(
        label: String? = nil, drainingOn schedule: @escaping @Sendable (_ drain: @escaping @Sendable () -> Void) -> Void
    ) {
        self.init(label: label, drainSchedule: schedule, isShared: false)
    }

    private init(
        label: String?, drainSchedule: (@Sendable (_ drain: @escaping @Sendable () -> Void) -> Void)?, isShared: Bool
    ) {
        // Once a bus other than the shared one exists, the code a bus runs sees it as current.
        if !isShared { Flux.noteAnotherBus() }
        let label = label ?? "flask.flux.\(Flux.unlabeledCount.add(1, ordering: .relaxed).newValue)"
        self.label = label
        self.drainSchedule = drainSchedule
        self.executor = DispatchQueue(label: label, qos: .userInitiated)
        self.diagnosticsHandler = LockedValue(DiagnosticsHandler(call: Flux.defaultDiagnostics))
        let drainer = FluxDrainer(label: label)
        self.drainer = drainer
        self.ownerHolds = FluxOwnerHolds(on: drainer)
        self.registry = FluxObserverRegistry(holds: ownerHolds, on: drainer)
        self.confined = FluxConfinedState(on: drainer)
    }

    // MARK: Dispatch

    /// Enqueues a named mixer on the main lane; its observers are called when it runs.
    ///
    /// - Parameters:
    ///   - mixer: the name observers registered with ``observe(_:owner:_:)``.
    ///   - payload: handed to every observer.
    ///   - fileID: where the dispatch is, for ``FluxEvent/origin``; leave the default.
    ///   - line: where the dispatch is; leave the default.
    ///   - function: where the dispatch is; leave the default.
    /// - Complexity: O(1) amortized; never waits for the bus.
    public func dispatch(
        _ mixer: FluxMixerName, payload: FluxPayload? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) {
        enqueue(.mixer(mixer, payload, nil, origin: FluxOrigin(fileID: fileID, line: line, function: function)))
    }

    /// Enqueues a named mixer carrying `value` (a value of your own type) on the main lane; its
    /// observers find it in ``FluxEvent/value``.
    ///
    /// - Complexity: O(1) amortized; allocates one small object for the value; never waits for the
    ///   bus.
    public func dispatch(
        _ mixer: FluxMixerName, payload: FluxPayload? = nil, value: any Sendable, fileID: StaticString = #fileID,
        line: UInt = #line, function: StaticString = #function
    ) {
        enqueue(
            .mixer(
                mixer, payload, carrying: FluxValueCarrier.carrying(value, lock: nil),
                origin: FluxOrigin(fileID: fileID, line: line, function: function)))
    }

    /// Enqueues a named mixer carrying `value` of a known type, in a carrier of its type. A value
    /// without stored bytes, of the type that scopes the name (a mixer domain's own), is carried
    /// without an object (see ``FluxEmptyValues``), so that its dispatch allocates nothing.
    @inlinable
    package func dispatch<Value: Sendable>(_ mixer: FluxMixerName, typedValue value: Value, origin: FluxOrigin?) {
        if MemoryLayout<Value>.size == 0, let domain = mixer.domain,
            ObjectIdentifier(domain) == ObjectIdentifier(Value.self), FluxEmptyValues.keep(value)
        {
            dispatch(emptyValueOf: mixer, origin: origin)
        } else {
            dispatch(mixer, carrying: FluxCarried(value, lock: nil), origin: origin)
        }
    }

    @usableFromInline
    func dispatch(_ mixer: FluxMixerName, carrying carrier: FluxValueCarrier, origin: FluxOrigin?) {
        enqueue(.mixer(mixer, nil, carrying: carrier, origin: origin))
    }

    @usableFromInline
    func dispatch(emptyValueOf mixer: FluxMixerName, origin: FluxOrigin?) {
        enqueue(.mixer(emptyValueOf: mixer, origin: origin))
    }

    /// Enqueues a task on the main lane (the seed's `performInFluxQueue`).
    public func perform(_ task: @escaping @Sendable () -> Void) {
        perform(FluxTask(task))
    }

    /// Enqueues a task on the main lane: like ``perform(_:)-(()->Void)``, but ``FluxMiddleware`` see
    /// it as a mix named `label` (the layers above queue their multi-step work so).
    public func perform(
        mix label: FluxMixerName, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function, _ task: @escaping @Sendable () -> Void
    ) {
        perform(mix: label, FluxTask(task), origin: FluxOrigin(fileID: fileID, line: line, function: function))
    }

    /// Enqueues a task, as ``perform(_:)-(()->Void)`` does (or, with a `label`, as
    /// ``perform(mix:fileID:line:function:_:)`` does), and `whenDropped` instead of it if a purge drops it
    /// before it started: for work someone awaits.
    package func perform(
        mix label: FluxMixerName? = nil, origin: FluxOrigin? = nil, _ task: @escaping @Sendable () -> Void,
        whenDropped: @escaping @Sendable () -> Void, whenFinished: (@Sendable () -> Void)? = nil
    ) {
        let task = FluxTask(task, whenDropped: whenDropped, whenFinished: whenFinished)
        if let label { perform(mix: label, task, origin: origin) } else { perform(task) }
    }

    /// Enqueues work on the main lane, as `perform(_:)` does a closure, given as an object:
    /// queueing it allocates nothing more.
    public func perform(_ work: FluxWork) {
        enqueue(.task(work))
    }

    /// Enqueues work on the main lane as a mix, as `perform(mix:_:)` does a closure,
    /// given as an object: queueing it allocates nothing more. `origin` is where it was asked for
    /// (its caller's call site), for ``FluxEvent/origin``.
    // `work` is consumed: the queue takes the caller's reference over (borrowed, it was retained
    // for the item and the caller's released after, for every chain: scenario S6).
    public func perform(mix label: FluxMixerName, _ work: consuming FluxWork, origin: FluxOrigin? = nil) {
        enqueue(.mixTask(label, work, origin: origin))
    }

    /// Enqueues a task on the exclusive lane: it runs before any main-lane item that has not
    /// started, even while locks are held.
    public func performExclusive(_ task: @escaping @Sendable () -> Void) {
        enqueueExclusive(.task(FluxTask(task)))
    }

    /// Enqueues the bus's upkeep on the exclusive lane (observers and middleware added or removed,
    /// counts asked for): like ``performExclusive(_:)``, but a purge does not drop it.
    package func performUpkeep(_ task: @escaping @Sendable () -> Void) {
        enqueueExclusive(.upkeep(FluxTask(task)))
    }

    /// Calls `wake` on the bus when it next lets go of what it holds: at the end of the batch it
    /// is running, after at most 128 work items, before a task. A consumer of what the bus
    /// produces (a stream, the owners a route holds), woken then rather than at
    /// each item, takes a batch at a time.
    package func wakeWhenLettingGo(_ wake: any FluxDeferredWake) {
        ownerHolds.wakeWhenLettingGo(wake)
    }

    /// The bus's one object of type `T`, made by `make` the first time it is asked for: state a
    /// module built on the bus keeps per bus (the owners its routes hold, say), as long as the
    /// bus lives.
    package func clientObject<T: AnyObject & Sendable>(_ type: T.Type, make: () -> T) -> T {
        clientObjects.withLock { objects in
            // Stored under `T`'s identity, so it is a `T`.
            if let object = objects[ObjectIdentifier(T.self)] { return object as! T }
            let object = make()
            objects[ObjectIdentifier(T.self)] = object
            return object
        }
    }

    /// Suspends until every main-lane item enqueued before this call has run or been purged (so
    /// it also waits for the locks that pause the main lane).
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enqueue(.resume(continuation))
        }
    }

    /// Whether the calling code runs on this bus, inside a work item.
    @inlinable
    public var isCurrent: Bool { drainer.isCurrent }

    /// Traps, in debug builds only, unless the calling code runs on this bus: for calls that only
    /// its work items may make (`message` names the call). Release builds check nothing.
    @inlinable
    public func assertIsCurrent(
        _ message: @autoclosure () -> String = "this call", file: StaticString = #fileID, line: UInt = #line
    ) {
        #if DEBUG
            if !drainer.isCurrent { drainer.trapOffBus(message(), file: file, line: line) }
        #endif
    }

    // MARK: Observers

    /// Observes a named mixer for as long as `owner` lives.
    ///
    /// The owner is held weakly, except that while the bus runs a batch of work it keeps the
    /// owners it delivered to alive for a while: at most 128 work items, and never into a task,
    /// such as the one that resumes ``flush()``. An owner whose last other reference goes
    /// meanwhile is called until then, and freed on the bus.
    ///
    /// The registration takes effect before any item that has not started yet. The handler runs on
    /// the bus, once per dispatch of the mixer, with the owner; observers of one mixer run in
    /// registration order.
    ///
    /// - Returns: a registration to cancel early; it need not be kept.
    @discardableResult
    public func observe<Owner: AnyObject & Sendable>(
        _ mixer: FluxMixerName,
        owner: Owner,
        _ handler: @escaping @Sendable (Owner, FluxEvent) -> Void
    ) -> FluxObservation {
        observe(mixer, untypedOwner: owner) { owner, event in
            handler(owner as! Owner, event)  // the owner registered with this handler
        }
    }

    /// ``observe(_:owner:_:)`` with a handler that takes its owner untyped and casts it itself:
    /// the bus calls it directly, without a generic closure in front of it (for the package's own
    /// observers, whose owner type is known where they are made).
    @discardableResult
    package func observe(
        _ mixer: FluxMixerName,
        untypedOwner owner: any AnyObject & Sendable,
        _ handler: @escaping @Sendable (AnyObject, FluxEvent) -> Void
    ) -> FluxObservation {
        let id = observerSerial.add(1, ordering: .relaxed).newValue
        let entry = FluxObserverRegistry.Entry(id: id, owner: owner, on: self, handler: handler)
        let registry = self.registry
        performUpkeep { registry.add(entry, for: mixer) }
        return FluxObservation(id: id, mixer: mixer, bus: self)
    }

    func removeObserver(id: UInt64, mixer: FluxMixerName) {
        let registry = self.registry
        performUpkeep { registry.remove(id: id, for: mixer) }
    }

    /// The number of live observers of a mixer, counted on the bus.
    public func observerCount(of mixer: FluxMixerName) async -> Int {
        let registry = self.registry
        return await withCheckedContinuation { continuation in
            performUpkeep { continuation.resume(returning: registry.count(for: mixer)) }
        }
    }

    // MARK: Middleware

    /// Installs a middleware after those already installed. It sees every mix that has not
    /// started yet.
    public func use(_ middleware: any FluxMiddleware) {
        // `confined` is read in the task, on the bus, not here: the thread sanitizer counts an
        // access to a confined value (`confined.state.value.x += 1`) as a write of every stored
        // property on its path, `Flux.confined` included, so a read of it off the bus would be
        // reported as racing with the bus.
        performUpkeep { [self] in
            let confined = self.confined
            // Middleware are known to ignore reports by identity: one installed anew is asked again
            // (an address once another's, removed and freed, must not inherit what that one said).
            if !confined.state.value.middleware.contains(where: { $0 === middleware }) {
                confined.state.value.ignoringReports.remove(ObjectIdentifier(middleware))
            }
            confined.state.value.middleware.append(middleware)
        }
    }

    /// Removes a middleware installed with ``use(_:)``; mixes that have not started no longer
    /// reach it.
    public func remove(_ middleware: any FluxMiddleware) {
        performUpkeep { [self] in
            let confined = self.confined  // on the bus: see `use(_:)`
            confined.state.value.middleware.removeAll { $0 === middleware }
            confined.state.value.ignoringReports.remove(ObjectIdentifier(middleware))
        }
    }

    // MARK: Locks

    /// Pauses the main lane until the returned lock is released.
    ///
    /// Locks stack: the main lane resumes when every lock is released. A lock taken inside a
    /// running item holds back the next item.
    ///
    /// - Parameters:
    ///   - fileID: where the lock was taken, for ``lockReport(queuedLimit:now:)``; leave the default.
    ///   - line: where the lock was taken; leave the default.
    public func lock(fileID: StaticString = #fileID, line: UInt = #line) -> FluxLock {
        let origin = FluxLock.Origin(fileID: fileID, line: line)
        let (lock, room) = queue.withLock { $0.takeLock(bus: self, mixer: nil, autorelease: false, origin: origin) }
        interrupts.add(1, ordering: .releasing)
        if let room { wake(room) }
        return lock
    }

    /// Pauses the main lane and runs `mixer` on the exclusive lane: an *exclusive mix*.
    ///
    /// The lock travels with the mixer's ``FluxEvent`` so that the receiver can release it when
    /// its (possibly asynchronous) work is done: the seed's "async flux".
    ///
    /// - Parameters:
    ///   - mixer: the mixer to run on the exclusive lane.
    ///   - payload: handed to its observers.
    ///   - autorelease: when `true`, the lock is released as soon as the mixer has run if no
    ///     receiver took responsibility for it (a reactor, by reading `reaction.onLock`); a mix
    ///     that changes nothing therefore never wedges the bus. A bus observer cannot take it: one
    ///     that releases ``FluxEvent/lock`` later, when its work is done, needs `false`.
    ///   - fileID: where the lock was taken, for ``lockReport(queuedLimit:now:)``; leave the default.
    ///   - line: where the lock was taken; leave the default.
    ///   - function: where the lock was taken; leave the default.
    public func lock(
        withMixer mixer: FluxMixerName, payload: FluxPayload? = nil, autorelease: Bool = true,
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) -> FluxLock {
        lock(
            withMixer: mixer, payload: payload, value: nil, autorelease: autorelease, fileID: fileID, line: line,
            function: function)
    }

    /// ``lock(withMixer:payload:autorelease:fileID:line:function:)`` for a mixer carrying `value` (a typed
    /// action, say), which its observers find in ``FluxEvent/value``.
    public func lock(
        withMixer mixer: FluxMixerName, payload: FluxPayload? = nil, value: (any Sendable)?, autorelease: Bool = true,
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) -> FluxLock {
        // The lock is taken and its mix queued under one hold of the mutex, which the bus thread
        // also takes for every lock released.
        let origin = FluxLock.Origin(fileID: fileID, line: line)
        let dispatched = FluxOrigin(fileID: fileID, line: line, function: function)
        let (lock, room, start) = queue.withLock { q in
            let (lock, room) = q.takeLock(bus: self, mixer: mixer, autorelease: autorelease, origin: origin)
            if let value {
                q.exclusive.append(
                    .mixer(
                        mixer, payload, carrying: FluxValueCarrier.carrying(value, lock: lock), origin: dispatched))
            } else {
                q.exclusive.append(.mixer(mixer, payload, lock, origin: dispatched))
            }
            return (lock, room, q.claimDrain())
        }
        interrupts.add(1, ordering: .releasing)
        if let room { wake(room) }
        if start { scheduleDrain() }
        return lock
    }

    /// Releases every open lock (reason ``FluxLock/Release/removeAll``).
    public func removeLocks() {
        for lock in openLocks { lock.release(.removeAll) }
    }

    /// The locks currently held, oldest first, for diagnosis.
    public var openLocks: [FluxLock] {
        queue.withLock { $0.locks.all }
    }

    /// The serials of the open locks, oldest first.
    func openLockSerials() -> [UInt64] {
        queue.withLock { $0.locks.serials }
    }

    func lockReleased(_ lock: FluxLock) {
        let start = queue.withLock { q in
            q.locks.remove(serial: lock.serial)
            return q.claimDrain()
        }
        if start { scheduleDrain() }
    }

    /// What the locks are holding back, now: every open lock (who took it, for how long) and the
    /// main-lane items queued behind them.
    ///
    /// - Parameters:
    ///   - queuedLimit: how many queued items to name (all are counted).
    ///   - now: the time to measure how long locks were held against.
    public func lockReport(queuedLimit: Int = 20, now: ContinuousClock.Instant = .now) -> FluxLockReport {
        let (locks, queued, queuedCount, exclusiveCount) = queue.withLock { q in
            (
                q.locks.all, q.pendingMainLabels(limit: max(0, queuedLimit)), q.pendingMainCount,
                q.exclusive.count
            )
        }
        return FluxLockReport(
            locks: locks.map { FluxLockReport.Lock($0, now: now) },
            queued: queued.map(\.label), queuedOrigins: queued.map(\.origin), queuedCount: queuedCount,
            exclusiveQueuedCount: exclusiveCount)
    }

    // MARK: Purge

    /// Drops every queued item that has not started, on both lanes. The locks of dropped exclusive
    /// mixes are released (reason ``FluxLock/Release/purged``); other locks stay held.
    ///
    /// Waiters of ``flush()`` among the dropped items are resumed, and so are the callers awaiting
    /// dropped work (`dispatchAndWait`, and the awaited spellings of the layers above): they get
    /// an outcome in which nothing ran. Bookkeeping on the exclusive lane
    /// (observers and middleware added or removed, counts asked for) is not dropped.
    ///
    /// - Returns: the number of queued work items dropped (flush waiters not counted). The rest of
    ///   the batch the bus is running (on the main lane at most a chunk of 512 items; the
    ///   exclusive lane is taken whole) is dropped too and not counted: the bus decides between
    ///   two items how much of it ran, after this returns.
    @discardableResult
    public func purge() -> Int {
        let (taken, room) = queue.withLock { q in
            q.purgeEpoch += 1
            return (q.takeAll(), q.roomWanted ? q.makeRoom() : nil)
        }
        interrupts.add(Flux.purgeStep, ordering: .releasing)
        if let room { wake(room) }
        drop(taken.items)
        // The suspended batch's items that ran are freed here too, out of the queue's lock.
        return taken.items.count { !$0.runsWhenDropped }
    }

    /// Settles dropped items: their exclusive locks are released, flush waiters resumed, awaited
    /// work told (its awaiter resumes with nothing done).
    func drop(_ items: some Collection<FluxItem>) {
        for item in items {
            if let lock = item.lock { lock.release(.purged) }
            item.settleDropped()
        }
    }

    // MARK: Backlog

    /// The default ``backlogHighWaterMark``: 100,000 work items.
    public static let defaultBacklogMark = 100_000

    /// How many work items may wait on the main lane before the bus reports a
    /// ``FluxDiagnostic/Code/backlog`` diagnostic, naming the bus and the depth; nil: never.
    ///
    /// It is reported once per crossing: again only after the backlog has come down to half the
    /// mark. Waiting items are those queued and those the bus has taken to run and not run yet. A
    /// backlog means the code that dispatches is faster than the bus runs the mixes (and what
    /// their receivers do), so the queue, and the memory it holds, grows without bound: see
    /// docs/performance.md, "Backlog", for what each waiting item costs and what to do.
    public var backlogHighWaterMark: Int? {
        get { queue.withLock { $0.backlogMark == .max ? nil : $0.backlogMark } }
        set {
            queue.withLock { q in
                q.backlogMark = max(1, newValue ?? .max)
                q.backlogArmed = q.pendingMainCount < q.backlogMark
            }
        }
    }

    // MARK: Diagnostics

    /// The handler of misuse and bad-input reports for this bus and everything that uses it.
    ///
    /// The default prints in debug builds and is silent in release builds. Replace it to log or to
    /// assert in tests; it may be called from any thread.
    public var diagnostics: @Sendable (FluxDiagnostic) -> Void {
        get { diagnosticsHandler.withLock { $0 }.call }
        set { diagnosticsHandler.withLock { $0 = DiagnosticsHandler(call: newValue) } }
    }

    /// The handler in a structure of its own. A closure stored directly as a generic lock's value
    /// came back wrapped in two more conversion thunks at every read (the value is passed `inout`
    /// and written back at its generic representation): each report made the handler deeper, until
    /// a long-running process slowed down and overflowed its stack.
    private struct DiagnosticsHandler: Sendable {
        let call: @Sendable (FluxDiagnostic) -> Void
    }

    /// The default diagnostics handler: prints in debug builds, silent in release builds.
    public static let defaultDiagnostics: @Sendable (FluxDiagnostic) -> Void = { diagnostic in
        #if DEBUG
            print(diagnostic)
        #endif
    }

    /// Reports a diagnostic through ``diagnostics``.
    public func report(_ code: FluxDiagnostic.Code, _ message: String) {
        let handler = diagnosticsHandler.withLock { $0 }.call
        handler(FluxDiagnostic(code, message))
    }
}
