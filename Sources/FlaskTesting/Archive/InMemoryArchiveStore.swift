import Archive
import Foundation
import Substances

/// An `ArchiveStore` in memory, for tests: nothing touches the disk, every write is recorded,
/// and writes or reads can be made to fail.
///
/// ```swift
/// let store = InMemoryArchiveStore()
/// let settings = ArchiveSettings(archiver: Archiver(store: store, clock: ManualArchiveClock()))
/// let draft = Substance<Draft>(name: "draft", archive: true, archiveSettings: settings)
/// ```
///
/// Safe to use from any thread: its contents, records and switches are behind one lock, and the
/// callbacks (``whenAttempted(_:)``, ``whenWritten(_:)``) run outside it. Only one owner can ever
/// open it (the object itself), so it claims no key (see `ArchiveStore.claim(key:)`).
public final class InMemoryArchiveStore: ArchiveStore {
    /// What the lock guards.
    private struct State {
        var contents: [String: Data]
        var writes: [String] = []
        var attempts: [String] = []
        var failsWrites = false
        var failsReads = false
        var onAttempt: (@Sendable () -> Void)?
        var onWrite: (@Sendable () -> Void)?
    }

    private let state: LockedValue<State>

    /// A store holding `contents` (empty by default).
    public init(contents: [String: Data] = [:]) {
        state = LockedValue(State(contents: contents))
    }

    /// What is stored, by key.
    public var contents: [String: Data] { state.withLock { $0.contents } }

    /// The keys written, in order: each write that stored its bytes.
    public var writes: [String] { state.withLock { $0.writes } }

    /// The keys whose writes were attempted, in order, failed ones included.
    public var attempts: [String] { state.withLock { $0.attempts } }

    /// Whether writes throw (and store nothing): to test what an app does when its disk is full.
    public var failsWrites: Bool {
        get { state.withLock { $0.failsWrites } }
        set { state.withLock { $0.failsWrites = newValue } }
    }

    /// Whether reads throw.
    public var failsReads: Bool {
        get { state.withLock { $0.failsReads } }
        set { state.withLock { $0.failsReads = newValue } }
    }

    /// Calls `callback` at each write attempt, before it succeeds or fails (nil: no longer). Whether
    /// the attempt fails is decided before the callback runs.
    public func whenAttempted(_ callback: (@Sendable () -> Void)?) {
        state.withLock { $0.onAttempt = callback }
    }

    /// Calls `callback` after each write that stored its bytes (nil: no longer).
    public func whenWritten(_ callback: (@Sendable () -> Void)?) {
        state.withLock { $0.onWrite = callback }
    }

    /// The bytes stored under `key`, or nil.
    ///
    /// - Throws: `CocoaError(.fileReadNoPermission)` while ``failsReads`` is set.
    public func data(forKey key: String) throws -> Data? {
        try state.withLock { state in
            if state.failsReads { throw CocoaError(.fileReadNoPermission) }
            return state.contents[key]
        }
    }

    /// Stores `data` under `key`, and records the write.
    ///
    /// - Throws: `CocoaError(.fileWriteOutOfSpace)`, as a full disk would, while ``failsWrites`` is
    ///   set; nothing is stored, and the attempt is recorded.
    public func set(_ data: Data, forKey key: String) throws {
        // Whether it fails is decided when the attempt starts, before the callback.
        let (fails, attempted) = state.withLock { ($0.failsWrites, $0.onAttempt) }
        attempted?()
        let written = state.withLock { state in
            if !fails { state.contents[key] = data }
            state.attempts.append(key)
            if !fails { state.writes.append(key) }
            return state.onWrite
        }
        if fails { throw CocoaError(.fileWriteOutOfSpace) }
        written?()
    }

    /// Deletes what is stored under `key`.
    public func removeData(forKey key: String) throws {
        state.withLock { $0.contents[key] = nil }
    }
}
