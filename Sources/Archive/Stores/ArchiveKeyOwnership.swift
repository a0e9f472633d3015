import FlaskLocking
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Another live owner, in this process or another, archives under the key: the store refused to
/// write it (see ``ArchiveStore/claim(key:)``).
public struct ArchiveKeyOwnedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The archive key.
    public let key: String
    /// The process that owns the key, where the platform tells (nil when it does not, or when the
    /// owner is another store of this very process).
    public let ownerProcess: Int32?

    /// The error for `key`, owned by the process `ownerProcess` if known.
    public init(key: String, ownerProcess: Int32?) {
        self.key = key
        self.ownerProcess = ownerProcess
    }

    public var description: String {
        let owner: String
        if let ownerProcess {
            owner = ownerProcess == getpid() ? "another store of this process" : "process \(ownerProcess)"
        } else {
            owner = "another owner"
        }
        return "\(owner) archives under \(ArchiveProblem.shortened(key)); nothing was written"
    }
}

/// The keys a ``FileArchiveStore`` owns, each by an advisory lock (`flock`) on a lock file beside
/// its archive, held for as long as the store lives: the kernel lets it go when the process ends,
/// however it ends (`kill -9` included), so no lock outlives its owner.
///
/// A key is claimed at its first write, or when it is restored. A key that was refused stays
/// refused for writes until it is restored again: the refused owner's state was read before the
/// other owner's last writes, and writing it once the other owner is gone would overwrite them.
final class ArchiveKeyOwnership: Sendable {
    private struct State {
        /// The open lock files of the keys owned, by key.
        var owned: [String: Int32] = [:]
        /// The keys refused to this store until it claims them again by a restore.
        var refused: Set<String> = []
    }

    private let state = LockedValue(State())
    /// The store's directory.
    let directory: URL

    init(directory: URL) {
        self.directory = directory
    }

    deinit {
        // Closing a lock file lets its key go.
        state.withLock { state in
            for fd in state.owned.values { close(fd) }
        }
    }

    /// Claims `key`, whose lock file is `lockFile`: succeeds when the store owns it already or gets
    /// its lock now. With `retrying` false (a write), a key refused before is refused again without
    /// trying; with true (a restore, which reads what the other owner wrote), it is tried again.
    func claim(_ key: String, lockFile: URL, retrying: Bool) throws {
        try state.withLock { state in
            if state.owned[key] != nil { return }
            if !retrying, state.refused.contains(key) {
                throw ArchiveKeyOwnedError(key: key, ownerProcess: Self.owner(recordedIn: lockFile))
            }
            let fd = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError(errno: errno) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let code = errno
                close(fd)
                guard code == EWOULDBLOCK || code == EAGAIN else { throw POSIXError(errno: code) }
                state.refused.insert(key)
                throw ArchiveKeyOwnedError(key: key, ownerProcess: Self.owner(recordedIn: lockFile))
            }
            // Who owns it, for the error another owner gets: this process.
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = pwrite(fd, pid, pid.count, 0)
            state.owned[key] = fd
            state.refused.remove(key)
        }
    }

    /// The process recorded in a lock file by its owner, if any. An owner records itself right
    /// after it takes the lock: a file still empty is read again, for up to about 10 ms.
    private static func owner(recordedIn lockFile: URL) -> Int32? {
        for _ in 0..<10 {
            if let data = try? Data(contentsOf: lockFile), !data.isEmpty {
                return Int32(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            }
            usleep(1_000)
        }
        return nil
    }
}
