import Dispatch
import Foundation

/// Persists `Codable` values under keys, through an ``ArchiveStore``.
///
/// - Writes are debounced: ``scheduleWrite(key:after:store:encode:onFailure:)`` called in a burst
///   writes once, `delay` seconds after the last call. Encoding and I/O run on the archiver's own
///   queue, never on the caller's thread.
/// - ``flush()`` writes every pending value now. Pending writes are flushed on a normal process exit
///   and, on Apple platforms, when the app moves to the background or terminates.
/// - ``restore(_:key:defaultValue:store:)`` never fails: an archive of another shape restores what
///   still fits, corrupt bytes restore the default, and the bytes that could not be used are kept
///   aside, never destroyed.
///
/// ```swift
/// let archiver = Archiver(store: try FileArchiveStore(directory: folder))
/// archiver.scheduleWrite(key: "settings", after: 2) { try JSONEncoder().encode(settings) }
/// let restored = archiver.restore(Settings.self, key: "settings", defaultValue: Settings())
/// ```
public final class Archiver: Sendable {
    /// The archiver substances use unless they name another; its store is the app's default store.
    public static let shared = Archiver(store: UserDefaultsArchiveStore())

    private let storage: Guarded<any ArchiveStore>
    private let pending = Guarded(PendingWrites())
    private let queue = DispatchQueue(label: "flask.archive", qos: .utility)

    /// Creates an archiver writing to `store` by default.
    public init(store: any ArchiveStore) {
        self.storage = Guarded(store)
        ArchiverRegistry.register(self)
    }

    /// The default store. Pick it once, at launch, before substances restore.
    public var store: any ArchiveStore {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    // MARK: Reading

    /// Reads the value archived under `key`. Never fails and never crashes; see ``ArchiveProblem``.
    public func restore<T: Codable>(
        _ type: T.Type, key: String, defaultValue: @autoclosure () -> T, store: (any ArchiveStore)? = nil
    ) -> ArchiveRestoration<T> {
        let store = store ?? self.store
        let data: Data?
        do {
            data = try store.data(forKey: key)
        } catch {
            let problem = ArchiveProblem(key: key, kind: .storeFailed(operation: "read"), reason: "\(error)")
            return ArchiveRestoration(value: defaultValue(), found: false, problems: [problem])
        }
        guard let data else { return ArchiveRestoration(value: defaultValue(), found: false, problems: []) }
        let decodeError: any Error
        do {
            return ArchiveRestoration(value: try JSONDecoder().decode(T.self, from: data), found: true, problems: [])
        } catch {
            decodeError = error
        }
        let fallback = defaultValue()
        if let (value, defaulted) = TolerantDecoding.decode(T.self, from: data, defaultValue: fallback) {
            let keptAt = keepAside(data, key: key, suffix: "previous-shape", store: store)
            let problem = ArchiveProblem(
                key: key, kind: .partiallyRestored(defaulted: defaulted, keptAt: keptAt), reason: describe(decodeError))
            return ArchiveRestoration(value: value, found: true, problems: [problem])
        }
        let keptAt = keepAside(data, key: key, suffix: "unreadable", store: store)
        let problem = ArchiveProblem(key: key, kind: .unreadable(keptAt: keptAt), reason: describe(decodeError))
        return ArchiveRestoration(value: fallback, found: true, problems: [problem])
    }

    private func keepAside(_ data: Data, key: String, suffix: String, store: any ArchiveStore) -> String {
        let asideKey = "\(key).\(suffix)"
        try? store.set(data, forKey: asideKey)
        return asideKey
    }

    private func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "data corrupted at \(path(context))"
        case DecodingError.keyNotFound(let key, let context): "key \(key.stringValue) not found at \(path(context))"
        case DecodingError.typeMismatch(let type, let context): "expected \(type) at \(path(context))"
        case DecodingError.valueNotFound(let type, let context): "missing \(type) at \(path(context))"
        default: "\(type(of: error))"
        }
    }

    private func path(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "the top" : context.codingPath.map(\.stringValue).joined(separator: ".")
    }

    // MARK: Writing

    /// Writes under `key` once `delay` seconds have passed without another call for the same key.
    ///
    /// - Parameters:
    ///   - encode: called on the archiver's queue when the write happens; the latest one wins.
    ///   - onFailure: called if encoding or the store fails.
    public func scheduleWrite(
        key: String, after delay: Double, store: (any ArchiveStore)? = nil,
        encode: @escaping @Sendable () throws -> Data,
        onFailure: (@Sendable (ArchiveProblem) -> Void)? = nil
    ) {
        let deadline = DispatchTime.now() + max(0, delay)
        let store = store ?? self.store
        let arm = pending.withLock { pending in
            // A key with a write pending is armed already.
            pending.schedule(key, encode: encode, onFailure: onFailure, store: store, deadline: deadline)
        }
        if arm { queue.asyncAfter(deadline: deadline) { self.fire(key) } }
    }

    private func fire(_ key: String) {
        enum Action {
            case rearm(DispatchTime)
            case write(PendingWrites.Write)
        }
        let action: Action? = pending.withLock { pending in
            guard let write = pending[key] else { return nil }
            if write.deadline > DispatchTime.now() { return .rearm(write.deadline) }
            pending.remove(key)
            return .write(write)
        }
        switch action {
        case .rearm(let deadline): queue.asyncAfter(deadline: deadline) { self.fire(key) }
        case .write(let write): perform(write, key: key)
        case nil: break
        }
    }

    /// Encodes and stores `value` under `key` now, on the calling thread, replacing any pending
    /// write of that key.
    public func write(_ data: Data, key: String, store: (any ArchiveStore)? = nil) throws {
        _ = pending.withLock { $0.remove(key) }
        try queue.sync { try (store ?? self.store).set(data, forKey: key) }
    }

    /// Deletes what is stored under `key` and drops a pending write of it.
    public func remove(key: String, store: (any ArchiveStore)? = nil) throws {
        _ = pending.withLock { $0.remove(key) }
        try queue.sync { try (store ?? self.store).removeData(forKey: key) }
    }

    /// Writes every pending value now and returns when they are stored.
    public func flush() {
        let all = pending.withLock { $0.removeAll() }
        queue.sync {
            for (key, write) in all.sorted(by: { $0.key < $1.key }) { perform(write, key: key) }
        }
    }

    /// The keys with a write pending.
    public var pendingKeys: [String] { pending.withLock { $0.keys.sorted() } }

    private func perform(_ write: PendingWrites.Write, key: String) {
        do {
            try write.store.set(try write.encode(), forKey: key)
        } catch {
            write.onFailure?(ArchiveProblem(key: key, kind: .storeFailed(operation: "write"), reason: "\(error)"))
        }
    }
}

/// Every archiver, so pending writes can be flushed at exit.
enum ArchiverRegistry {
    private struct Weak: @unchecked Sendable {  // the reference is only read under the mutex
        weak var archiver: Archiver?
    }

    private static let archivers = Guarded<[Weak]>([])
    private static let installed = Guarded(false)

    static func register(_ archiver: Archiver) {
        archivers.withLock { list in
            list.removeAll { $0.archiver == nil }
            list.append(Weak(archiver: archiver))
        }
        let install = installed.withLock { installed in
            defer { installed = true }
            return !installed
        }
        if install {
            atexit { ArchiverRegistry.flushAll() }
            #if canImport(Darwin)
                let names = [
                    "UIApplicationDidEnterBackgroundNotification", "UIApplicationWillTerminateNotification",
                    "NSApplicationWillTerminateNotification",
                ]
                for name in names {
                    NotificationCenter.default.addObserver(forName: Notification.Name(name), object: nil, queue: nil) {
                        _ in
                        ArchiverRegistry.flushAll()
                    }
                }
            #endif
        }
    }

    /// Flushes the pending writes of every live archiver.
    static func flushAll() {
        let live = archivers.withLock { $0.compactMap(\.archiver) }
        for archiver in live { archiver.flush() }
    }
}

/// A value behind an `NSLock` (which the thread sanitizer understands), reached only through
/// `withLock`.
///
/// `@unchecked Sendable`: the value is only touched inside `withLock`, with the lock held.
final class Guarded<Value>: @unchecked Sendable {
    // Only reached with the lock held, which already excludes overlapping access.
    @exclusivity(unchecked) private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
