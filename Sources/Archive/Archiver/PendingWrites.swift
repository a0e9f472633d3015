import Foundation

/// An archiver's pending writes by key, and when each must happen: the state machine of its
/// timing. Its transitions say what to do (arm a wake-up, perform a write); the archiver does it
/// outside its lock.
///
/// A write is due at the earlier of two deadlines: `delay` after the last time it was scheduled
/// (the debounce), and `maxDelay` after the first time, when it became pending (the bound on how
/// stale the archive can get while changes keep coming).
///
/// The write scheduled last is kept at hand: an archived substance schedules its key again on
/// every commit, and comparing with the last key (usually the very same string, equal at once)
/// spares hashing it and looking the write up in the dictionary. Its place there is kept, not a
/// reference to it: writes are values, updated in place.
///
/// Times are nanoseconds on the archiver's clock (`Int64`, not `Duration`: an archived substance
/// schedules on every commit, and `Duration`'s 128-bit arithmetic would cost a tenth of such a commit).
///
/// Used only with the archiver's `pending` lock held.
struct PendingWrites: Sendable {
    typealias Nanoseconds = Int64

    /// A write waiting for its deadline: updated in place by later calls for its key, until it is
    /// taken out to be performed. A value: the copy taken out is the performing thread's own, and
    /// one that fails goes back in (``retry(_:_:notBefore:)``).
    struct Write: Sendable {
        /// Encodes the value whole: a write of the whole value, and what a patch falls back to.
        var encode: @Sendable () throws -> Data
        /// The patches of the changes scheduled since the key was last written, in order (see
        /// ``ArchivePatch``): appended to a log store's log instead of writing the value whole,
        /// unless ``whole`` says otherwise.
        var patches: [@Sendable () throws -> ArchivePatch?] = []
        /// Whether the value is to be written whole: a schedule gave no patch, or a write of the key
        /// failed (its patches are then out of order with what the log holds).
        var whole = false
        var onFailure: (@Sendable (ArchiveProblem) -> Void)?
        var onRecovery: (@Sendable (ArchiveRecovery) -> Void)?
        var store: any ArchiveStore
        /// When it became pending.
        let since: Nanoseconds
        /// When it is due.
        var deadline: Nanoseconds
        /// The wake-up that may perform it: an earlier one, armed before a later schedule moved the
        /// deadline, finds another number and does nothing.
        var wakeUp: UInt64
        /// When that wake-up comes.
        var wakeUpAt: Nanoseconds
        /// Who schedules it, if the caller said (see `ArchiveClaims`).
        var owner: ObjectIdentifier?
        /// The earliest it may be performed: after a failed attempt, the back-off's end, which a
        /// later schedule does not bring forward (`Int64.min` otherwise).
        var notBefore: Nanoseconds = .min
        /// Its number among the writes of any key started (taken out to be performed), set when it
        /// is: a failed write goes back only if no later one of its key was started since.
        var started: UInt64

        init(
            encode: @escaping @Sendable () throws -> Data, patch: (@Sendable () throws -> ArchivePatch?)? = nil,
            onFailure: (@Sendable (ArchiveProblem) -> Void)?,
            onRecovery: (@Sendable (ArchiveRecovery) -> Void)? = nil,
            store: any ArchiveStore, since: Nanoseconds, deadline: Nanoseconds, wakeUp: UInt64,
            owner: ObjectIdentifier?, started: UInt64 = 0
        ) {
            self.encode = encode
            if let patch { patches = [patch] } else { whole = true }
            self.onFailure = onFailure
            self.onRecovery = onRecovery
            self.store = store
            self.since = since
            self.deadline = deadline
            self.wakeUp = wakeUp
            self.wakeUpAt = deadline
            self.owner = owner
            self.started = started
        }

        /// Scheduled again at `now`: takes the new callbacks and store, and moves the deadline.
        ///
        /// - Returns: the deadline of a wake-up to arm, numbered `wakeUps` + 1, when the new
        ///   deadline is earlier than the one armed; whether the owner changed.
        mutating func reschedule(
            encode: @escaping @Sendable () throws -> Data, patch: (@Sendable () throws -> ArchivePatch?)?,
            onFailure: (@Sendable (ArchiveProblem) -> Void)?,
            onRecovery: (@Sendable (ArchiveRecovery) -> Void)?, store: any ArchiveStore, owner: ObjectIdentifier?,
            now: Nanoseconds, delay: Nanoseconds, maxDelay: Nanoseconds, wakeUps: inout UInt64
        ) -> (action: Action, ownerChanged: Bool) {
            self.encode = encode
            if let patch, !whole {
                patches.append(patch)
            } else {
                whole = true
                patches = []
            }
            self.onFailure = onFailure
            // Kept from the first schedule that gave one: an archived substance schedules on every
            // commit with the same callback, and replacing it would cost a retain and a release each time.
            if self.onRecovery == nil { self.onRecovery = onRecovery }
            self.store = store
            let ownerChanged = self.owner != owner
            self.owner = owner
            deadline = max(min(now &+ delay, since &+ maxDelay), notBefore)
            guard deadline < wakeUpAt else { return (.none, ownerChanged) }
            wakeUps &+= 1
            wakeUp = wakeUps
            wakeUpAt = deadline
            return (.arm(number: wakeUps, at: deadline), ownerChanged)
        }
    }

    /// What the archiver must do after a transition.
    enum Action: Sendable {
        case none
        /// Arm wake-up `number` of `key` at `deadline`.
        case arm(number: UInt64, at: Nanoseconds)
        /// Perform `write` now. (Boxed: an action is returned by every schedule, nearly always
        /// `.none`, and a write inline would make each of them a copy of its size.)
        indirect case perform(Write)
    }

    private var byKey: [String: Write] = [:]
    /// The key scheduled last and its write's place in `byKey`: forgotten whenever a key is added
    /// or removed, which may move the others.
    private var last: (key: String, index: Dictionary<String, Write>.Index)?
    private var wakeUps: UInt64 = 0
    /// The number of the last write started, or the last explicit write or removal, of each key
    /// that had one.
    private var lastStarted: [String: UInt64] = [:]
    private var starts: UInt64 = 0

    /// Schedules a write of `key` at `now`, replacing the one pending.
    ///
    /// - Returns: `.arm` when a wake-up must be armed: for a key that had no write pending, or
    ///   when the new deadline is earlier than the wake-up already armed (a shorter delay).
    mutating func schedule(
        _ key: String, encode: @escaping @Sendable () throws -> Data, patch: (@Sendable () throws -> ArchivePatch?)?,
        onFailure: (@Sendable (ArchiveProblem) -> Void)?, onRecovery: (@Sendable (ArchiveRecovery) -> Void)?,
        store: any ArchiveStore, owner: ObjectIdentifier?, now: Nanoseconds, delay: Nanoseconds, maxDelay: Nanoseconds
    ) -> (action: Action, ownerChanged: Bool) {
        if let index = last?.key == key ? last?.index : byKey.index(forKey: key) {
            last = (key, index)
            return byKey.values[index].reschedule(
                encode: encode, patch: patch, onFailure: onFailure, onRecovery: onRecovery, store: store, owner: owner,
                now: now, delay: delay, maxDelay: maxDelay, wakeUps: &wakeUps)
        }
        wakeUps &+= 1
        let deadline = now &+ min(delay, maxDelay)
        byKey[key] = Write(
            encode: encode, patch: patch, onFailure: onFailure, onRecovery: onRecovery, store: store, since: now,
            deadline: deadline, wakeUp: wakeUps, owner: owner)
        last = nil
        return (.arm(number: wakeUps, at: deadline), true)
    }

    /// Wake-up `number` of `key` has come at `now`: the write is performed if it is due, or the
    /// wake-up armed again for its later deadline; a wake-up that was replaced does nothing.
    mutating func wake(_ key: String, number: UInt64, now: Nanoseconds) -> Action {
        guard let index = byKey.index(forKey: key), byKey.values[index].wakeUp == number else { return .none }
        let deadline = byKey.values[index].deadline
        if deadline > now {
            wakeUps &+= 1
            byKey.values[index].wakeUp = wakeUps
            byKey.values[index].wakeUpAt = deadline
            return .arm(number: wakeUps, at: deadline)
        }
        return take(key).map { .perform($0) } ?? .none
    }

    /// Records that a write of `key` (or an explicit write or removal of it) starts now: whatever
    /// of the key was started before is out of date.
    ///
    /// - Returns: the number of this start, for the write's ``Write/started``.
    @discardableResult
    mutating func start(_ key: String) -> UInt64 {
        starts &+= 1
        lastStarted[key] = starts
        return starts
    }

    /// Takes the write of `key` out, if one is pending, and starts it.
    mutating func take(_ key: String) -> Write? {
        guard var write = remove(key) else { return nil }
        write.started = start(key)
        return write
    }

    /// `write` of `key` failed: it is pending again, due at `notBefore` (the back-off's end). If
    /// the key was scheduled again while it was being performed, the newer write (the later state)
    /// is kept instead, and waits for the back-off too.
    ///
    /// A write of the key started after it (a later wake-up, `writeNow`, a flush, an explicit write
    /// or removal) makes it out of date: it is dropped, and the later one stands.
    mutating func retry(_ key: String, _ write: Write, notBefore: Nanoseconds) -> Action {
        guard lastStarted[key] == write.started else { return .none }
        if let index = byKey.index(forKey: key) {
            byKey.values[index].notBefore = notBefore
            byKey.values[index].deadline = max(byKey.values[index].deadline, notBefore)
            // The failed write's patches are not in the log, and the newer ones follow them: the
            // value is written whole.
            byKey.values[index].whole = true
            byKey.values[index].patches = []
            // Its armed wake-up, if earlier, finds the later deadline and arms again.
            return .none
        }
        var write = write
        // What of it reached the log is not known: the value is written whole.
        write.whole = true
        write.patches = []
        wakeUps &+= 1
        write.notBefore = notBefore
        write.deadline = notBefore
        write.wakeUp = wakeUps
        write.wakeUpAt = notBefore
        byKey[key] = write
        last = nil
        return .arm(number: wakeUps, at: notBefore)
    }

    subscript(key: String) -> Write? { byKey[key] }

    var keys: Dictionary<String, Write>.Keys { byKey.keys }

    /// Takes the write of `key` out, if one is pending (without starting it: see ``take(_:)``).
    @discardableResult
    mutating func remove(_ key: String) -> Write? {
        guard let write = byKey.removeValue(forKey: key) else { return nil }
        last = nil
        return write
    }

    /// Takes every pending write out and starts them.
    mutating func removeAll() -> [String: Write] {
        last = nil
        var all: [String: Write] = [:]
        all.reserveCapacity(byKey.count)
        for (key, var write) in byKey {
            write.started = start(key)
            all[key] = write
        }
        byKey = [:]
        return all
    }
}
