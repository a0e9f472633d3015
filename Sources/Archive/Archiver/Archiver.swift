import Dispatch
import FlaskLocking
import Foundation

/// Persists `Codable` values under keys, through an ``ArchiveStore``.
///
/// - Writes are debounced and bounded: a burst of
///   ``scheduleWrite(key:after:maxDelay:store:owner:encode:patch:onFailure:onRecovery:)`` calls writes once, `delay`
///   seconds after the last call, or `maxDelay` seconds (5 by default) after the first, whichever
///   comes first; so an archive is never more than about `maxDelay` seconds behind, even while
///   changes keep coming. Time is read from the archiver's ``ArchiveClock``.
/// - ``writeNow(key:store:owner:onFailure:onRecovery:encode:completion:)`` writes at once, replacing what is
///   pending; ``flush()`` writes everything pending and waits. Pending writes are flushed on a
///   normal process exit, on Apple platforms when the app moves to the background or terminates,
///   and, if the app asks for it with ``flushOnTermination(signals:)``, on SIGTERM and SIGINT.
/// - Encoding, decoding and I/O run on one archive thread, never on the caller's (except that
///   ``restore(_:key:defaultValue:store:owner:)``, ``flush()`` and the other synchronous calls
///   wait for it).
/// - ``restore(_:key:defaultValue:store:owner:)`` never fails: an archive of another shape restores
///   what still fits, value by value, corrupt bytes restore the default, and what could not be used
///   is kept aside, never destroyed.
///
/// ```swift
/// let archiver = Archiver(store: try FileArchiveStore(directory: folder))
/// archiver.scheduleWrite(key: "settings", after: 2) { try ArchiveEncoder().encode(settings) }
/// let restored = archiver.restore(Settings.self, key: "settings", defaultValue: Settings())
/// ```
public final class Archiver: Sendable {
    /// The archiver substances use unless they name another. Its store is the platform's default:
    /// `UserDefaults` on Apple platforms, elsewhere a ``FileArchiveStore`` in the app's data
    /// directory (``FileArchiveStore/applicationDirectory(applicationName:environment:)``).
    public static let shared = Archiver(store: Archiver.platformDefaultStore())

    /// The longest a pending write waits, in seconds, unless the caller says otherwise: 5.
    public static let defaultMaxDelay = 5.0

    /// What the archiver changes as it goes, behind one lock.
    struct State: Sendable {
        var pending = PendingWrites()
        var claims = ArchiveClaims()
        /// Keys whose unreadable content could not be kept aside: writing them would destroy it, so
        /// writes are refused (and reported) until the key is removed or written explicitly.
        var protected: Set<String> = []
        /// Keys whose last write failed, how many attempts in a row have, and the last one's
        /// problem (what ``stored(key:)`` answers when nothing is pending): a failure is reported
        /// when it starts such an episode, and the first write that succeeds ends it.
        var failing: [String: (attempts: Int, problem: ArchiveProblem)] = [:]
        /// The logs of the keys written whole by this archiver, which patches may be appended to.
        var logs: [String: KeyLog] = [:]
        var minimumCompactionBytes = Archiver.defaultMinimumCompactionBytes
    }

    /// What an archiver knows of a key's log (see ``ArchiveLogStore``): patches are appended to it
    /// only once the archiver wrote the value whole (its snapshot then is what the patches change).
    struct KeyLog: Sendable {
        /// The sequence number of the next patch.
        var nextSequence: UInt64 = 1
        /// The bytes of the log, since the snapshot.
        var logBytes = 0
        /// The bytes of the snapshot.
        var snapshotBytes = 0
        /// Bumped by every whole write: a compaction started before one is out of date.
        var generation: UInt64 = 0
        /// Whether a compaction is under way.
        var compacting = false
    }

    /// The default of ``minimumPatchingBytes``: 8 KiB.
    public static let defaultMinimumPatchingBytes = 8 << 10

    /// The least size of an archived substance's JSON for its writes to be patches, appended to a
    /// log (with a store that keeps logs, ``ArchiveLogStore``): a smaller value is written whole,
    /// which costs less than finding what changed (``defaultMinimumPatchingBytes`` unless set).
    /// Learned from each whole write of the value. Both ways store the same value. Substances
    /// read it when they decide whether to find patches; the archiver itself does not: a write of
    /// your own given patches (`scheduleWrite(key:after:maxDelay:store:owner:encode:patch:onFailure:onRecovery:)`)
    /// appends them whatever the value's size.
    public var minimumPatchingBytes: Int {
        get { patchingThreshold.withLock { $0 } }
        set { patchingThreshold.withLock { $0 = max(0, newValue) } }
    }

    /// ``minimumPatchingBytes``, in an object of its own: what a substance's pending write reads
    /// when it is encoded, without holding the archiver (a write waits in its archiver: holding it
    /// kept an archiver alive, with its store's claims, as long as a write was pending).
    package let patchingThreshold = LockedValue(Archiver.defaultMinimumPatchingBytes)

    /// The default of ``minimumCompactionBytes``: 1 MiB.
    public static let defaultMinimumCompactionBytes = 1 << 20

    /// The least a key's log grows to before it is compacted into a new snapshot
    /// (``defaultMinimumCompactionBytes`` unless set); past it, the log is compacted once it
    /// outgrows the snapshot, so that it never holds much more than the value does, and a restore
    /// reads at most about twice the value's bytes.
    public var minimumCompactionBytes: Int {
        get { state.withLock { $0.minimumCompactionBytes } }
        set { state.withLock { $0.minimumCompactionBytes = max(0, newValue) } }
    }

    private let storage: LockedValue<any ArchiveStore>
    let state = LockedValue(State())
    /// The callers waiting for their keys to be stored (see ``stored(key:)``).
    let durability = LockedValue(ArchiveDurability())
    private let clock: any ArchiveClock
    /// Whether `clock` is the system's: then `now` is read directly, without the existential call and
    /// the `Duration` (every commit of an archived substance reads it).
    private let systemClock: Bool
    let worker: ArchiveWorker

    /// Creates an archiver writing to `store` by default, timed by `clock`.
    public convenience init(store: any ArchiveStore, clock: any ArchiveClock = SystemArchiveClock()) {
        self.init(store: store, clock: clock, worker: .shared)
    }

    /// An archiver with an archive thread of its own: for tests that hold a write up on purpose,
    /// which would hold up every other archiver of the process on the shared thread.
    package convenience init(store: any ArchiveStore, clock: any ArchiveClock, ownThread: Void) {
        self.init(store: store, clock: clock, worker: ArchiveWorker())
    }

    private init(store: any ArchiveStore, clock: any ArchiveClock, worker: ArchiveWorker) {
        self.storage = LockedValue(store)
        self.clock = clock
        self.systemClock = clock is SystemArchiveClock
        self.worker = worker
        ArchiverRegistry.register(self)
    }

    /// The clock's time in nanoseconds.
    private var now: PendingWrites.Nanoseconds {
        if systemClock { return Int64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds) }
        let (seconds, attoseconds) = clock.now.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// An archiver freed with writes pending performs them first.
    deinit {
        let all = state.withLock { $0.pending.removeAll() }
        guard !all.isEmpty else { return }
        let protected = state.withLock { $0.protected }
        worker.sync {
            // The last chance: a write that fails now is reported, with nothing left to retry it.
            for (key, write) in all.sorted(by: { $0.key < $1.key }) {
                if let problem = Archiver.store(write, key: key, protected: protected.contains(key)).problem {
                    write.onFailure?(problem)
                }
            }
        }
    }

    /// Whether the default store keeps logs (``ArchiveLogStore``): then a write with patches costs
    /// the change (see ``scheduleWrite(key:after:maxDelay:store:owner:encode:patch:onFailure:onRecovery:)``).
    public var keepsLogs: Bool { storage.withLock { $0 is any ArchiveLogStore } }

    /// The default store. Pick it once, at launch, before substances restore.
    public var store: any ArchiveStore {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    static func platformDefaultStore() -> any ArchiveStore {
        #if canImport(Darwin)
            UserDefaultsArchiveStore()
        #else
            FileArchiveStore()
        #endif
    }

    // MARK: Reading

    /// Reads the value archived under `key`. Never fails and never crashes; see ``ArchiveProblem``.
    ///
    /// A write of `key` still pending is performed first, so a value scheduled and not yet written
    /// is the one restored. The bytes are decoded with `JSONDecoder`; when that fails, value by
    /// value (``ArchiveProblem/Kind/partiallyRestored(defaulted:keptAt:)``), in time linear in the
    /// archive's size.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - key: the key the value was archived under.
    ///   - defaultValue: the value a missing archive, or a part of it that cannot be read, takes.
    ///   - store: the store to read, the default one when nil.
    ///   - owner: the object that will archive under `key`: it claims the key, in this archiver and
    ///     in the store (``ArchiveStore/claim(key:)``), and a second live owner, here or in another
    ///     process, is reported (``ArchiveProblem/Kind/keyInUse``). Without one, the restore only
    ///     reads.
    public func restore<T: Codable>(
        _ type: T.Type, key: String, defaultValue: @autoclosure () -> T, store: (any ArchiveStore)? = nil,
        owner: AnyObject? = nil
    ) -> ArchiveRestoration<T> {
        let store = store ?? self.store
        var problems: [ArchiveProblem] = []
        if let owner, state.withLock({ $0.claims.claim(key, by: owner) }) {
            problems.append(Archiver.keyInUse(key))
        }
        // An owner will write what it restores: it claims the key in the store too. A restore
        // without one only reads (a tool looking at a live app's archive takes nothing from it).
        do {
            if owner != nil { try store.claim(key: key) }
        } catch let owned as ArchiveKeyOwnedError {
            // Read all the same: what the owner wrote is what there is. Writes are refused, and
            // their refusal is not reported again (it starts no new episode).
            let problem = ArchiveProblem(
                key: key, kind: .keyInUse,
                reason: owned.ownership + "; restored what it holds, and this store will not write it")
            problems.append(problem)
            state.withLock { $0.failing[key] = (0, problem) }
        } catch {
            // The read below reports a store that fails.
        }
        let pendingWrite = state.withLock { $0.pending.take(key) }
        let fallback = defaultValue()
        let (restoration, protect) = worker.sync { () -> (ArchiveRestoration<T>, Bool) in
            if let pendingWrite, perform(pendingWrite, key: key) != nil,
                let data = try? pendingWrite.encode(),
                let value = try? ArchiveEncoder.decoder().decode(T.self, from: data)
            {
                // The write failed (it stays pending): what it holds is still the latest value.
                return (ArchiveRestoration(value: value, found: true, problems: []), false)
            }
            return Archiver.read(T.self, key: key, fallback: fallback, store: store)
        }
        // A key is protected while what it holds could not be read or kept aside, no longer; the
        // refusals of its writes meanwhile are over with it (`stored(key:)` answers with none).
        state.withLock { state in
            if protect {
                state.protected.insert(key)
            } else if state.protected.remove(key) != nil {
                state.failing.removeValue(forKey: key)
            }
        }
        return ArchiveRestoration(
            value: restoration.value, found: restoration.found, problems: problems + restoration.problems)
    }

    /// Reads and decodes `key` (on the worker). Returns whether writes of the key must be refused,
    /// because what it holds could not be read or kept aside.
    private static func read<T: Codable>(_ type: T.Type, key: String, fallback: T, store: any ArchiveStore)
        -> (ArchiveRestoration<T>, protect: Bool)
    {
        let data: Data?
        do {
            data = try store.data(forKey: key)
        } catch let foreign as ArchiveForeignValueError {
            let aside = keepAside(nil, key: key, suffix: "unreadable", store: store)
            let problem = ArchiveProblem(
                key: key, kind: .unreadable(keptAt: aside.key), reason: foreign.description + aside.note)
            return (ArchiveRestoration(value: fallback, found: true, problems: [problem]), !aside.kept)
        } catch {
            // Writing now could replace what could not be read: the key is protected.
            let problem = ArchiveProblem(
                key: key, kind: .storeFailed(operation: "read"),
                reason: ArchiveErrorReason.describe(error) + "; not writing the key until it is read or removed")
            return (ArchiveRestoration(value: fallback, found: false, problems: [problem]), true)
        }
        guard let data else { return (ArchiveRestoration(value: fallback, found: false, problems: []), false) }
        let strictError: any Error
        do {
            return (
                ArchiveRestoration(
                    value: try ArchiveEncoder.decoder().decode(T.self, from: data), found: true, problems: []),
                false
            )
        } catch {
            strictError = error
        }
        switch TolerantDecoding.decode(T.self, from: data, defaultValue: fallback) {
        case .restored(let value, let notes):
            let aside = keepAside(data, key: key, suffix: "previous-shape", store: store)
            let defaulted = Archiver.counted(notes.map { $0.leftOut ? "\($0.path) (left out)" : $0.path })
            let reasons = notes.prefix(3).map { $0.reason }
            // The strict decoder's error names its coding path in keys of its own, where a
            // dictionary's keys (user data) cannot be told apart: only its kind is written.
            let reason = (reasons.isEmpty ? [ArchiveErrorReason.kind(of: strictError)] : reasons).joined(
                separator: "; ")
            let problem = ArchiveProblem(
                key: key, kind: .partiallyRestored(defaulted: defaulted, keptAt: aside.key), reason: reason + aside.note
            )
            return (ArchiveRestoration(value: value, found: true, problems: [problem]), !aside.kept)
        case .unreadable(let reason):
            let aside = keepAside(data, key: key, suffix: "unreadable", store: store)
            let problem = ArchiveProblem(key: key, kind: .unreadable(keptAt: aside.key), reason: reason + aside.note)
            return (ArchiveRestoration(value: fallback, found: true, problems: [problem]), !aside.kept)
        }
    }

    /// `paths` in their order, each once, with how many times it came when more than once: the
    /// entries of a dictionary all have one path (`tokens[…]`), their keys being user data.
    static func counted(_ paths: [String]) -> [String] {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for path in paths {
            if counts[path] == nil { order.append(path) }
            counts[path, default: 0] += 1
        }
        return order.map { counts[$0]! > 1 ? "\($0) ×\(counts[$0]!)" : $0 }
    }

    /// Copies what `key` holds (`data`, or the store's own value when nil) to `<key>.<suffix>`, or
    /// to `<key>.<suffix>.<n>` when that already holds something else, so bytes kept at an earlier
    /// launch are not replaced.
    private static func keepAside(_ data: Data?, key: String, suffix: String, store: any ArchiveStore)
        -> (key: String, kept: Bool, note: String)
    {
        var asideKey = "\(key).\(suffix)"
        for number in 2...100 {
            let existing: Data?
            do {
                existing = try store.data(forKey: asideKey)
            } catch {
                asideKey = "\(key).\(suffix).\(number)"
                continue
            }
            if existing == nil || (data != nil && existing == data) { break }
            asideKey = "\(key).\(suffix).\(number)"
        }
        do {
            if let data {
                try store.set(data, forKey: asideKey)
            } else {
                try store.copyValue(forKey: key, to: asideKey)
            }
            return (asideKey, true, "")
        } catch {
            let note = "; could not keep it aside (\(ArchiveErrorReason.describe(error))), so not writing the key"
            return (asideKey, false, note)
        }
    }

    /// Throws unless this archiver may write `key`: what an app or a server calls at launch, after
    /// its substances restored, to stop at once when another live process owns its archive rather
    /// than run without storing anything.
    ///
    /// ```swift
    /// do {
    ///     try Archiver.shared.confirmOwnership(of: "Fx.1.notes")
    /// } catch {
    ///     print("another process owns the notes: \(error)")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: the archive key.
    ///   - store: the store to ask, the default one when nil.
    /// - Throws: ``ArchiveProblem/Kind/keyInUse`` when another live owner holds the key, or held it
    ///   when it was restored (the restored value predates that owner's last writes, so this
    ///   archiver will not write it even once the owner is gone: restart to restore what it
    ///   wrote); ``ArchiveProblem/Kind/ownershipLost`` once the store no longer finds the key where
    ///   it owned it; ``ArchiveProblem/Kind/storeFailed(operation:)`` when the store cannot claim it.
    public func confirmOwnership(of key: String, store: (any ArchiveStore)? = nil) throws(ArchiveProblem) {
        let store = store ?? self.store
        if let failure = state.withLock({ $0.failing[key]?.problem.kind }),
            failure == .keyInUse || failure == .ownershipLost
        {
            throw ArchiveProblem(
                key: key, kind: failure,
                reason: failure == .keyInUse
                    ? "another live owner held the key when it was restored; restart to restore what it wrote"
                    : "the archive was removed or moved from under this owner; restore it again")
        }
        do {
            try store.claim(key: key)
        } catch let owned as ArchiveKeyOwnedError {
            let problem = ArchiveProblem(key: key, kind: .keyInUse, reason: owned.description)
            state.withLock { $0.failing[key] = (0, problem) }
            throw problem
        } catch let lost as ArchiveOwnershipLostError {
            let problem = ArchiveProblem(key: key, kind: .ownershipLost, reason: lost.description)
            state.withLock { $0.failing[key] = (0, problem) }
            throw problem
        } catch {
            throw ArchiveProblem(
                key: key, kind: .storeFailed(operation: "claim"), reason: ArchiveErrorReason.describe(error))
        }
    }

    // MARK: Writing

    /// Writes under `key` once `delay` seconds have passed without another call for the same key,
    /// or `maxDelay` seconds after the first call that found nothing pending, whichever comes first.
    ///
    /// - Parameters:
    ///   - key: the key to write under.
    ///   - delay: the quiet time, in seconds, a burst of calls waits for before the write.
    ///   - maxDelay: the longest the write waits while calls keep coming, in seconds.
    ///   - store: the store to write to, the default one when nil.
    ///   - owner: the object that writes under `key`: a second live owner of the same key (writing, or
    ///     restoring with an owner) is reported once through `onFailure`
    ///     (``ArchiveProblem/Kind/keyInUse``). Both go on writing; the last write wins.
    ///   - encode: called on the archive thread when the write happens; the latest one wins. Encode
    ///     with ``ArchiveEncoder``: it refuses a value too deep to be read back instead of crashing.
    ///   - onFailure: called, on the archive thread, if encoding or the store fails: once when the
    ///     key's writes start failing, not again for each retry (see ``retryDelays``).
    ///   - onRecovery: called, on the archive thread, when a write of the key succeeds after
    ///     failing.
    ///   - patch: what changed since the last schedule, as an ``ArchivePatch`` (nil from the closure
    ///     when it cannot say): with a store that keeps logs (``ArchiveLogStore``), the write
    ///     appends the patches scheduled since the last one instead of writing the value whole, so
    ///     that it costs the change; `encode` still writes the value whole, the first time and to
    ///     compact the log. Without, the value is written whole.
    public func scheduleWrite(
        key: String, after delay: Double, maxDelay: Double = Archiver.defaultMaxDelay,
        store: (any ArchiveStore)? = nil, owner: AnyObject? = nil,
        encode: @escaping @Sendable () throws -> Data,
        patch: (@Sendable () throws -> ArchivePatch?)? = nil,
        onFailure: (@Sendable (ArchiveProblem) -> Void)? = nil,
        onRecovery: (@Sendable (ArchiveRecovery) -> Void)? = nil
    ) {
        let now = self.now
        let store = store ?? self.store
        let ownerID = owner.map(ObjectIdentifier.init)
        let (action, conflict) = state.withLock { state -> (PendingWrites.Action, Bool) in
            let (action, ownerChanged) = state.pending.schedule(
                key, encode: encode, patch: patch, onFailure: onFailure, onRecovery: onRecovery, store: store,
                owner: ownerID, now: now, delay: Archiver.duration(delay), maxDelay: Archiver.duration(maxDelay))
            guard ownerChanged, let owner else { return (action, false) }
            return (action, state.claims.claim(key, by: owner))
        }
        if conflict { onFailure?(Archiver.keyInUse(key)) }
        run(action, key: key)
    }

    /// Writes under `key` now, whatever is pending: a pending write of the key is dropped (this one
    /// is newer) and this one is performed after the writes already under way. Never blocks.
    ///
    /// ```swift
    /// archiver.writeNow(key: "settings", encode: { try ArchiveEncoder().encode(settings) }) { problem in
    ///     if let problem { print(problem) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: the key to write under.
    ///   - store: the store to write to, the default one when nil.
    ///   - encode: called on the archive thread; encode with ``ArchiveEncoder``.
    ///   - owner: as for ``scheduleWrite(key:after:maxDelay:store:owner:encode:patch:onFailure:onRecovery:)``; a
    ///     second live owner is reported through `onFailure`.
    ///   - onFailure: as for ``scheduleWrite(key:after:maxDelay:store:owner:encode:patch:onFailure:onRecovery:)``:
    ///     called when this write starts a failure episode of the key. A write that fails stays
    ///     pending and is retried.
    ///   - onRecovery: called when a later attempt succeeds after failing.
    ///   - completion: called on the archive thread once the bytes are stored (with nil), or with
    ///     the problem, after this attempt (retries do not call it again).
    public func writeNow(
        key: String, store: (any ArchiveStore)? = nil, owner: AnyObject? = nil,
        onFailure: (@Sendable (ArchiveProblem) -> Void)? = nil,
        onRecovery: (@Sendable (ArchiveRecovery) -> Void)? = nil,
        encode: @escaping @Sendable () throws -> Data,
        completion: (@Sendable (ArchiveProblem?) -> Void)? = nil
    ) {
        let store = store ?? self.store
        let now = self.now
        let (started, conflict) = state.withLock { state -> (UInt64, Bool) in
            state.pending.remove(key)
            let started = state.pending.start(key)
            guard let owner else { return (started, false) }
            return (started, state.claims.claim(key, by: owner))
        }
        let write = PendingWrites.Write(
            encode: encode, onFailure: onFailure, onRecovery: onRecovery, store: store, since: now, deadline: now,
            wakeUp: 0, owner: ownerID(owner), started: started)
        worker.async { [self] in
            if conflict { onFailure?(Archiver.keyInUse(key)) }
            // Performed first, then passed on: as the argument of `completion?(…)`, the write was
            // not evaluated at all when there was no completion.
            let problem = perform(write, key: key)
            completion?(problem)
        }
    }

    private func ownerID(_ owner: AnyObject?) -> ObjectIdentifier? {
        owner.map(ObjectIdentifier.init)
    }

    /// Does what a transition of the pending writes asks.
    private func run(_ action: PendingWrites.Action, key: String) {
        switch action {
        case .none:
            break
        case .arm(let number, let deadline):
            clock.wake(at: .nanoseconds(deadline)) { [weak self] in self?.wake(key, number: number) }
        case .perform(let write):
            worker.async { [self] in perform(write, key: key) }
        }
    }

    private func wake(_ key: String, number: UInt64) {
        let now = self.now
        let action = state.withLock { state -> PendingWrites.Action in
            let action = state.pending.wake(key, number: number, now: now)
            guard case .perform(let write) = action else { return action }
            // A write taken out of the pending ones is handed to the worker before the lock is let
            // go: a `flush()` that no longer finds it pending then finds it on the worker, ahead of
            // its own job, and returns only once it is stored. (So does a durable write.)
            worker.async { [self] in perform(write, key: key) }
            return .none
        }
        run(action, key: key)
    }

    /// Stores `data` under `key` now and returns once it is stored, replacing any pending write of
    /// that key. An explicit write: it also lifts the protection of a key whose unreadable content
    /// could not be kept aside.
    ///
    /// - Throws: the store's own error, as it threw it, not an ``ArchiveProblem``
    ///   (`FileArchiveStore`: the `POSIXError` of the call that failed, an
    ///   ``ArchiveKeyOwnedError``, an ``ArchiveOwnershipLostError`` or an
    ///   ``ArchiveSpecialFileError``).
    public func write(_ data: Data, key: String, store: (any ArchiveStore)? = nil) throws {
        let store = store ?? self.store
        state.withLock { state in
            state.pending.remove(key)
            state.pending.start(key)
            state.protected.remove(key)
        }
        try worker.sync { Result { try store.set(data, forKey: key) } }.get()
        state.withLock { _ = $0.failing.removeValue(forKey: key) }
    }

    /// Deletes what is stored under `key` and drops a pending write of it.
    ///
    /// - Throws: the store's own error, as ``write(_:key:store:)`` does.
    public func remove(key: String, store: (any ArchiveStore)? = nil) throws {
        let store = store ?? self.store
        state.withLock { state in
            state.pending.remove(key)
            state.pending.start(key)
            state.protected.remove(key)
            state.failing.removeValue(forKey: key)
        }
        try worker.sync { Result { try store.removeData(forKey: key) } }.get()
    }

    /// Writes every pending value now, including those waiting to be retried after a failure, and
    /// returns when they, and every write already under way, are stored or have failed again (then
    /// they stay pending, see ``retryDelays``).
    public func flush() {
        let all = state.withLock { $0.pending.removeAll() }
        worker.sync {
            for (key, write) in all.sorted(by: { $0.key < $1.key }) { perform(write, key: key) }
        }
    }

    /// Returns once the writes under way (their delay over, or asked for with
    /// ``writeNow(key:store:owner:onFailure:onRecovery:encode:completion:)`` or ``flush()``) are stored; writes still waiting for their delay stay pending. With a
    /// `ManualArchiveClock` (FlaskTesting), call it after `advance(by:)` to see what the wake-ups
    /// wrote.
    public func waitForWritesInProgress() {
        worker.sync {}
    }

    /// Returns once the compactions of logs under way are done (for tests: a compaction changes
    /// no value read).
    package func waitForCompactions() {
        ArchiveWorker.compaction.sync {}
        worker.sync {}
    }

    /// The keys with a write pending: waiting for its delay, or to be retried after a failure.
    public var pendingKeys: [String] { state.withLock { $0.pending.keys.sorted() } }

    /// The keys whose last write failed; those the store failed stay pending until a write succeeds
    /// (a value that could not be encoded waits for the next commit).
    public var failingKeys: [String] { state.withLock { $0.failing.keys.sorted() } }

    /// How long a key whose write failed waits before the next attempt, in seconds: after the
    /// first failure 1, then 2, 4, 8, 16, and 30 from then on, until a write succeeds. Commits
    /// meanwhile do not bring the next attempt forward (a failing disk is not hammered), but
    /// ``flush()``, the exit flush and an explicit write do not wait for it.
    public static let retryDelays: [Double] = [1, 2, 4, 8, 16, 30]

    /// Encodes and stores `write` (on the worker). A store that fails leaves the write pending,
    /// retried after ``retryDelays``; the failure is reported when it starts an episode of the key,
    /// and the first success after it is reported as a recovery. Returns what went wrong.
    @discardableResult
    func perform(_ write: PendingWrites.Write, key: String) -> ArchiveProblem? {
        let protected = state.withLock { $0.protected.contains(key) }
        guard let problem = storeWrite(write, key: key, protected: protected) else {
            let episode = state.withLock { $0.failing.removeValue(forKey: key) }
            if let episode { write.onRecovery?(ArchiveRecovery(key: key, failedAttempts: episode.attempts)) }
            return nil
        }
        let now = self.now
        let (report, action) = state.withLock {
            state -> ((@Sendable (ArchiveProblem) -> Void)?, PendingWrites.Action) in
            let previous = state.failing[key]
            let attempts = (previous?.attempts ?? 0) + 1
            state.failing[key] = (attempts, problem)
            // Reported when an episode starts, or when its kind of failure changes.
            let report = previous?.problem.kind == problem.kind ? nil : write.onFailure
            // An encoding fails the same way every time, and a protected key is refused until
            // it is removed or written: only a store's failure is worth another attempt.
            guard case .storeFailed = problem.kind, !protected else { return (report, .none) }
            let delays = Archiver.retryDelays
            let delay = Archiver.duration(delays[min(attempts, delays.count) - 1])
            return (report, state.pending.retry(key, write, notBefore: now &+ delay))
        }
        report?(problem)
        run(action, key: key)
        return problem
    }

    /// Stores `write` (on the worker): its patches appended to the key's log when the store keeps
    /// logs and the archiver wrote the value whole before (then the log is what they change), the
    /// value whole otherwise. Starts a compaction when the log has outgrown its snapshot. Returns
    /// what went wrong.
    private func storeWrite(_ write: PendingWrites.Write, key: String, protected: Bool) -> ArchiveProblem? {
        guard !protected, let store = write.store as? any ArchiveLogStore else {
            return Archiver.store(write, key: key, protected: protected).problem
        }
        let known = state.withLock { $0.logs[key] != nil }
        if write.whole || write.patches.isEmpty || !known { return storeWhole(write, key: key, in: store) }
        var lines = Data()
        do {
            for patch in write.patches {
                // A patch that cannot say what changed: the value goes whole.
                guard let made = try patch() else { return storeWhole(write, key: key, in: store) }
                if !made.operations.isEmpty { lines.append(contentsOf: made.line) }
            }
        } catch {
            return storeWhole(write, key: key, in: store)
        }
        // Commits that changed nothing: nothing to append.
        if lines.isEmpty { return nil }
        do {
            try store.appendLog(lines, forKey: key)
        } catch {
            // What of the lines reached the log is not known: the next write goes whole.
            state.withLock { $0.logs[key] = nil }
            return Archiver.problem(writing: key, error)
        }
        let compaction = state.withLock { state -> (bytes: Int, generation: UInt64)? in
            guard var log = state.logs[key] else { return nil }
            log.logBytes += lines.count
            defer { state.logs[key] = log }
            guard !log.compacting, log.logBytes > max(state.minimumCompactionBytes, log.snapshotBytes) else {
                return nil
            }
            log.compacting = true
            return (log.logBytes, log.generation)
        }
        if let compaction {
            compact(
                key, in: store, encode: write.encode, droppingFirst: compaction.bytes, generation: compaction.generation
            )
        }
        return nil
    }

    /// Stores `write`'s value whole (to a key with a log, the store appends it there), and from
    /// then on appends the key's patches to its log.
    private func storeWhole(_ write: PendingWrites.Write, key: String, in store: any ArchiveLogStore) -> ArchiveProblem?
    {
        let (problem, bytes) = Archiver.store(write, key: key, protected: false)
        let logBytes = problem == nil ? (try? store.logSize(forKey: key)) : nil
        state.withLock { state in
            guard problem == nil, let logBytes else {
                state.logs[key] = nil
                return
            }
            var log = state.logs[key] ?? KeyLog()
            log.generation &+= 1
            log.logBytes = logBytes
            log.snapshotBytes = max(bytes, log.snapshotBytes)
            state.logs[key] = log
        }
        return problem
    }

    /// Compacts the key's log in the background: the value as of the patches appended so far is
    /// encoded on the compaction thread, then written as the key's snapshot and the log's first
    /// `bytes` (those patches) dropped, on the archive thread, between writes. A whole write of the
    /// key meanwhile (a new generation) makes it out of date. An acknowledgement waits for it at
    /// most the writing of the snapshot, never its encoding.
    private func compact(
        _ key: String, in store: any ArchiveLogStore, encode: @escaping @Sendable () throws -> Data,
        droppingFirst bytes: Int, generation: UInt64
    ) {
        ArchiveWorker.compaction.async { [self] in
            let snapshot = try? encode()
            worker.async { [self] in
                defer { state.withLock { $0.logs[key]?.compacting = false } }
                guard let snapshot, state.withLock({ $0.logs[key]?.generation == generation }) else { return }
                do {
                    try store.compactLog(forKey: key, snapshot: snapshot, droppingFirst: bytes)
                    state.withLock { state in
                        state.logs[key]?.logBytes -= bytes
                        state.logs[key]?.snapshotBytes = snapshot.count
                    }
                } catch {
                    // The log stays as it is, whole: the value read is the same.
                }
            }
        }
    }

    /// Encodes and stores `write`; returns what went wrong, and the bytes written.
    private static func store(
        _ write: PendingWrites.Write, key: String, protected: Bool
    ) -> (problem: ArchiveProblem?, bytes: Int) {
        if protected {
            return (
                ArchiveProblem(
                    key: key, kind: .storeFailed(operation: "write"),
                    reason: "what the key holds could not be read or kept aside; remove the key to archive again"), 0
            )
        }
        let data: Data
        do {
            data = try write.encode()
        } catch {
            return (ArchiveProblem(key: key, kind: .encodingFailed, reason: ArchiveErrorReason.describe(error)), 0)
        }
        do {
            try write.store.set(data, forKey: key)
            return (nil, data.count)
        } catch {
            return (problem(writing: key, error), 0)
        }
    }

    /// The problem of a store's write of `key` that threw `error`.
    private static func problem(writing key: String, _ error: any Error) -> ArchiveProblem {
        switch error {
        case let owned as ArchiveKeyOwnedError:
            // Not retried: another live owner holds the key (see `ArchiveStore`).
            ArchiveProblem(key: key, kind: .keyInUse, reason: owned.description)
        case let lost as ArchiveOwnershipLostError:
            // Not retried either: the key stays lost until it is restored again.
            ArchiveProblem(key: key, kind: .ownershipLost, reason: lost.description)
        default:
            ArchiveProblem(key: key, kind: .storeFailed(operation: "write"), reason: ArchiveErrorReason.describe(error))
        }
    }

    private static func keyInUse(_ key: String) -> ArchiveProblem {
        ArchiveProblem(
            key: key, kind: .keyInUse,
            reason: "both archive under this key, and the archive holds whichever wrote last; give each a unique name")
    }

    /// `seconds` in nanoseconds, from 0 to 10^9 seconds (31 years; what waits longer never comes).
    private static func duration(_ seconds: Double) -> PendingWrites.Nanoseconds {
        guard !seconds.isNaN else { return 0 }
        return Int64(max(0, min(seconds, 1e9)) * 1e9)
    }
}
