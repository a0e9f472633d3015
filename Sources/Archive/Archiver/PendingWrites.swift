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
/// spares hashing it and looking the write up in the dictionary.
///
/// Times are nanoseconds on the archiver's clock (`Int64`, not `Duration`: an archived substance
/// schedules on every commit, and `Duration`'s 128-bit arithmetic would cost a tenth of such a commit).
///
/// Used only with the archiver's `pending` lock held.
struct PendingWrites: Sendable {
    typealias Nanoseconds = Int64

    /// A write waiting for its deadline: updated in place by later calls for its key, until it is
    /// taken out to be performed.
    ///
    /// `@unchecked Sendable`: read and written only with the archiver's lock held while pending;
    /// once taken out, no later call can reach it, and only the thread that performs it reads it.
    final class Write: @unchecked Sendable {
        // Only touched with the archiver's lock held (or by the one thread that performs it), which
        // already excludes overlapping access: the runtime check was a measurable part of every commit.
        @exclusivity(unchecked) var encode: @Sendable () throws -> Data
        @exclusivity(unchecked) var onFailure: (@Sendable (ArchiveProblem) -> Void)?
        @exclusivity(unchecked) var onRecovery: (@Sendable (ArchiveRecovery) -> Void)?
        @exclusivity(unchecked) var store: any ArchiveStore
        /// When it became pending.
        let since: Nanoseconds
        /// When it is due.
        @exclusivity(unchecked) var deadline: Nanoseconds
        /// The wake-up that may perform it: an earlier one, armed before a later schedule moved the
        /// deadline, finds another number and does nothing.
        @exclusivity(unchecked) var wakeUp: UInt64
        /// When that wake-up comes.
        @exclusivity(unchecked) var wakeUpAt: Nanoseconds
        /// Who schedules it, if the caller said (see `ArchiveClaims`).
        @exclusivity(unchecked) var owner: ObjectIdentifier?
        /// The earliest it may be performed: after a failed attempt, the back-off's end, which a
        /// later schedule does not bring forward (`Int64.min` otherwise).
        @exclusivity(unchecked) var notBefore: Nanoseconds = .min
        /// Its number among the writes of any key started (taken out to be performed), set when it
        /// is: a failed write goes back only if no later one of its key was started since.
        @exclusivity(unchecked) var started: UInt64 = 0

        init(
            encode: @escaping @Sendable () throws -> Data, onFailure: (@Sendable (ArchiveProblem) -> Void)?,
            onRecovery: (@Sendable (ArchiveRecovery) -> Void)? = nil,
            store: any ArchiveStore, since: Nanoseconds, deadline: Nanoseconds, wakeUp: UInt64, owner: ObjectIdentifier?
        ) {
            self.encode = encode
            self.onFailure = onFailure
            self.onRecovery = onRecovery
            self.store = store
            self.since = since
            self.deadline = deadline
            self.wakeUp = wakeUp
            self.wakeUpAt = deadline
            self.owner = owner
        }
    }

    /// What the archiver must do after a transition.
    enum Action: Sendable {
        case none
        /// Arm wake-up `number` of `key` at `deadline`.
        case arm(number: UInt64, at: Nanoseconds)
        /// Perform `write` now.
        case perform(Write)
    }

    private var byKey: [String: Write] = [:]
    private var last: (key: String, write: Write)?
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
        _ key: String, encode: @escaping @Sendable () throws -> Data,
        onFailure: (@Sendable (ArchiveProblem) -> Void)?, onRecovery: (@Sendable (ArchiveRecovery) -> Void)?,
        store: any ArchiveStore, owner: ObjectIdentifier?, now: Nanoseconds, delay: Nanoseconds, maxDelay: Nanoseconds
    ) -> (action: Action, ownerChanged: Bool) {
        if let write = last?.key == key ? last?.write : byKey[key] {
            write.encode = encode
            write.onFailure = onFailure
            // Kept from the first schedule that gave one: an archived substance schedules on every
            // commit with the same callback, and replacing it would cost a retain and a release each time.
            if write.onRecovery == nil { write.onRecovery = onRecovery }
            write.store = store
            let ownerChanged = write.owner != owner
            write.owner = owner
            write.deadline = max(min(now &+ delay, write.since &+ maxDelay), write.notBefore)
            last = (key, write)
            guard write.deadline < write.wakeUpAt else { return (.none, ownerChanged) }
            wakeUps &+= 1
            write.wakeUp = wakeUps
            write.wakeUpAt = write.deadline
            return (.arm(number: wakeUps, at: write.deadline), ownerChanged)
        }
        wakeUps &+= 1
        let deadline = now &+ min(delay, maxDelay)
        let write = Write(
            encode: encode, onFailure: onFailure, onRecovery: onRecovery, store: store, since: now, deadline: deadline,
            wakeUp: wakeUps, owner: owner)
        byKey[key] = write
        last = (key, write)
        return (.arm(number: wakeUps, at: deadline), true)
    }

    /// Wake-up `number` of `key` has come at `now`: the write is performed if it is due, or the
    /// wake-up armed again for its later deadline; a wake-up that was replaced does nothing.
    mutating func wake(_ key: String, number: UInt64, now: Nanoseconds) -> Action {
        guard let write = byKey[key], write.wakeUp == number else { return .none }
        if write.deadline > now {
            wakeUps &+= 1
            write.wakeUp = wakeUps
            write.wakeUpAt = write.deadline
            return .arm(number: wakeUps, at: write.deadline)
        }
        remove(key)
        start(key, write)
        return .perform(write)
    }

    /// Records that `write` of `key` (or, with nil, an explicit write or removal of it) starts now:
    /// whatever of the key was started before is out of date.
    mutating func start(_ key: String, _ write: Write?) {
        starts &+= 1
        lastStarted[key] = starts
        write?.started = starts
    }

    /// `write` of `key` failed: it is pending again, due at `notBefore` (the back-off's end). If
    /// the key was scheduled again while it was being performed, the newer write (the later state)
    /// is kept instead, and waits for the back-off too.
    ///
    /// A write of the key started after it (a later wake-up, `writeNow`, a flush, an explicit write
    /// or removal) makes it out of date: it is dropped, and the later one stands.
    mutating func retry(_ key: String, _ write: Write, notBefore: Nanoseconds) -> Action {
        guard lastStarted[key] == write.started else { return .none }
        if let newer = byKey[key] {
            newer.notBefore = notBefore
            newer.deadline = max(newer.deadline, notBefore)
            // Its armed wake-up, if earlier, finds the later deadline and arms again.
            return .none
        }
        wakeUps &+= 1
        write.notBefore = notBefore
        write.deadline = notBefore
        write.wakeUp = wakeUps
        write.wakeUpAt = notBefore
        byKey[key] = write
        return .arm(number: wakeUps, at: notBefore)
    }

    subscript(key: String) -> Write? { byKey[key] }

    var keys: Dictionary<String, Write>.Keys { byKey.keys }

    /// Takes the write of `key` out, if one is pending (without starting it: see ``start(_:_:)``).
    @discardableResult
    mutating func remove(_ key: String) -> Write? {
        if last?.key == key { last = nil }
        return byKey.removeValue(forKey: key)
    }

    /// Takes every pending write out and starts them.
    mutating func removeAll() -> [String: Write] {
        last = nil
        for (key, write) in byKey { start(key, write) }
        defer { byKey = [:] }
        return byKey
    }
}
