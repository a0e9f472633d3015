import FlaskLocking
import Foundation

/// Every live archiver, so that pending writes can be flushed at exit.
enum ArchiverRegistry {
    private struct Weak: Sendable {
        weak let archiver: Archiver?
    }

    private static let archivers = LockedValue<[Weak]>([])
    private static let installed = LockedValue(false)

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
