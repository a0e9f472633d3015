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

    public var description: String { ownership + "; nothing was written" }

    /// Who archives under the key ("process 4242 archives under orders"), without what it meant
    /// for a write: a restore says what it did instead.
    var ownership: String {
        let owner: String
        if let ownerProcess {
            owner = ownerProcess == getpid() ? "another store of this process" : "process \(ownerProcess)"
        } else {
            owner = "another owner"
        }
        return "\(owner) archives under \(ArchiveProblem.shortened(key))"
    }
}

/// The store that owned a key no longer finds it where it owned it: the archive's directory was
/// removed or renamed, or the key's lock file deleted or replaced, so another process may own the
/// key at that path now. The store writes nothing more under the key (see
/// ``FileArchiveStore``, "One owner per key").
public struct ArchiveOwnershipLostError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The archive key.
    public let key: String
    /// What the store found at the path: `"the directory was removed"`, say.
    public let finding: String

    /// The error for `key`, with what was found.
    public init(key: String, finding: String) {
        self.key = key
        self.finding = finding
    }

    public var description: String {
        "this store no longer owns \(ArchiveProblem.shortened(key)): \(finding); nothing was written, and nothing "
            + "more will be until the key is restored again"
    }
}

/// The keys a ``FileArchiveStore`` owns, each by an advisory lock (`flock`) on a lock file beside
/// its archive, held for as long as the store lives: the kernel lets it go when the process ends,
/// however it ends (`kill -9` included), so no lock outlives its owner.
///
/// A key is claimed at its first write, or when it is restored. A key that was refused stays
/// refused for writes until it is restored again: the refused owner's state was read before the
/// other owner's last writes, and writing it once the other owner is gone would overwrite them.
///
/// A lock on a path that can be unlinked is not ownership by itself: a claim remembers which
/// directory and which lock file it holds (device and inode), and every write checks that the path
/// still leads to both (``verify(_:lockFile:)``), before it starts, before its rename, and after
/// it. A key whose directory was removed or renamed, or whose lock file was deleted or replaced, is
/// lost: its lock is let go, and it is refused for writes, like a refused key, until a restore
/// claims it again.
final class ArchiveKeyOwnership: Sendable {
    /// A device and inode: what a path leads to.
    struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }

        /// What `path` leads to now (following symbolic links), or nil when nothing is there.
        static func of(path: String) -> Identity? {
            var status = stat()
            return stat(path, &status) == 0 ? Identity(status) : nil
        }

        /// What the open file `fd` is.
        static func of(fd: Int32) -> Identity? {
            var status = stat()
            return fstat(fd, &status) == 0 ? Identity(status) : nil
        }
    }

    /// An owned key: its open, locked lock file, what that file is, and the directory it was
    /// claimed in.
    private struct Claim {
        let fd: Int32
        let lockFile: Identity
        let directory: Identity
    }

    private struct State {
        /// The keys owned, by key.
        var owned: [String: Claim] = [:]
        /// The keys refused to this store until it claims them again by a restore: another owner
        /// held them, or this store lost them (why, then).
        var refused: [String: String?] = [:]
    }

    private let state = LockedValue(State())
    /// The lock files the stores of this process hold, by what they are, each with how many stores
    /// hold it (more than one only where `flock` does not exclude within a process, as on some
    /// network file systems): a lock held elsewhere on a file not in it, that records this process
    /// as its owner, is a copy of a lock a store here let go (see ``claim(_:lockFile:retrying:)``).
    private static let heldHere = LockedValue([Identity: Int]())
    /// What a lock file says of this process beside its pid: a process of another pid namespace (a
    /// container's process 1, say) may have the same pid.
    private static let processToken = String(UInt64.random(in: 1...UInt64.max), radix: 16)
    /// The store's directory.
    let directory: URL

    init(directory: URL) {
        self.directory = directory
    }

    deinit {
        // Closing a lock file lets its key go.
        state.withLock { state in
            for claim in state.owned.values { Self.letGo(claim) }
        }
    }

    /// Closes a claim's lock file, which lets its key go, and forgets it.
    private static func letGo(_ claim: Claim) {
        heldHere.withLock { held in
            let count = held.removeValue(forKey: claim.lockFile) ?? 0
            if count > 1 { held[claim.lockFile] = count - 1 }
        }
        close(claim.fd)
    }

    /// Claims `key`, whose lock file is `lockFile`: succeeds when the store owns it already or gets
    /// its lock now. With `retrying` false (a write), a key refused before is refused again without
    /// trying; with true (a restore, which reads what the other owner wrote), it is tried again.
    func claim(_ key: String, lockFile: URL, retrying: Bool) throws {
        do {
            try claim(key, lockFile: lockFile, retrying: retrying, settled: false)
        } catch is HeldByAnotherStoreHere {
            // Another store of this process holds the key: one whose owner is gone lets it go once
            // the archive workers have run the writes it was given (the last of which may finish
            // after its `stored()` returned), and once the bus lets the owner go. Tried again once
            // the workers have, and waited for up to about a second; held still, it is a live
            // owner. (Outside this store's lock: the workers' jobs may take it.)
            ArchiveWorker.settle()
            try claim(key, lockFile: lockFile, retrying: retrying, settled: true)
        }
    }

    /// The key is locked by another store of this process (a claim not yet `settled` throws it,
    /// instead of refusing the key).
    private struct HeldByAnotherStoreHere: Error {}

    private func claim(_ key: String, lockFile: URL, retrying: Bool, settled: Bool) throws {
        try state.withLock { state in
            if let claim = state.owned[key] {
                // Owned still, if the path leads to it (a restore of a lost key claims it anew).
                let (directoryFD, finding) = check(claim, lockFile: lockFile)
                if directoryFD >= 0 { close(directoryFD) }
                guard let finding else { return }
                lose(key, claim, finding, in: &state)
                if !retrying { throw ArchiveOwnershipLostError(key: key, finding: finding) }
            }
            if !retrying, let refusal = state.refused[key] {
                if let finding = refusal { throw ArchiveOwnershipLostError(key: key, finding: finding) }
                throw ArchiveKeyOwnedError(key: key, ownerProcess: Self.owner(recordedIn: lockFile).pid)
            }
            // A lock file unlinked (or replaced) between its open and its lock is not the key's: the
            // next owner opens the path. Tried again on the file the path leads to now.
            for _ in 0..<8 {
                let fd = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
                guard fd >= 0 else { throw POSIXError(errno: errno) }
                guard let identity = Identity.of(fd: fd), Self.isRegularFile(fd) else {
                    close(fd)
                    throw ArchiveSpecialFileError(path: lockFile.path)
                }
                // A child this process starts (`posix_spawn`) holds a copy of every open file until
                // it runs its program, so the lock of a store let go a moment ago may be held still,
                // by no owner: waited for, up to about a second, while no store of this process
                // holds the file and it records this process as its owner. So is a store of this
                // process going away, once the archive workers are settled (not on their threads,
                // which its going away may wait for).
                var waits = 0
                let mayWaitForAStoreHere = settled && !ArchiveWorker.isAnyCurrent
                while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                    let code = errno
                    guard code == EWOULDBLOCK || code == EAGAIN else {
                        close(fd)
                        throw POSIXError(errno: code)
                    }
                    let heldHere = Self.heldHere.withLock { $0[identity] != nil }
                    if heldHere, !settled {
                        close(fd)
                        throw HeldByAnotherStoreHere()
                    }
                    let recorded = Self.owner(recordedIn: lockFile)
                    let copyOfOurs = !heldHere && recorded.token.map(String.init) == Self.processToken
                    guard copyOfOurs || (heldHere && mayWaitForAStoreHere), waits < 1_000 else {
                        close(fd)
                        state.refused[key] = .some(nil)
                        throw ArchiveKeyOwnedError(key: key, ownerProcess: recorded.pid)
                    }
                    waits += 1
                    usleep(1_000)
                }
                guard Identity.of(path: lockFile.path) == identity,
                    let directory = Identity.of(path: self.directory.path)
                else {
                    close(fd)
                    continue
                }
                // Who owns it, for the error another owner gets: this process (its pid, then its
                // token).
                let owner = Array("\(getpid()) \(Self.processToken)\n".utf8)
                _ = ftruncate(fd, 0)
                _ = pwrite(fd, owner, owner.count, 0)
                Self.heldHere.withLock { $0[identity, default: 0] += 1 }
                state.owned[key] = Claim(fd: fd, lockFile: identity, directory: directory)
                state.refused[key] = nil
                return
            }
            throw ArchiveOwnershipLostError(key: key, finding: "its lock file keeps being replaced")
        }
    }

    /// Checks that the path still leads to what the claim of `key` holds: the directory it was
    /// claimed in, and its lock file. A key found lost is let go, and refused for writes until a
    /// restore claims it again.
    ///
    /// - Returns: the directory, opened (the caller closes it), so that the write goes into the
    ///   directory the store owns, whatever the path leads to meanwhile.
    /// - Throws: ``ArchiveOwnershipLostError`` for a key that is lost, now or before.
    func verify(_ key: String, lockFile: URL) throws -> Int32 {
        try state.withLock { state in
            guard let claim = state.owned[key] else {
                throw ArchiveOwnershipLostError(
                    key: key, finding: (state.refused[key] ?? nil) ?? "it was never claimed")
            }
            let (directoryFD, finding) = check(claim, lockFile: lockFile)
            guard let finding else { return directoryFD }
            if directoryFD >= 0 { close(directoryFD) }
            lose(key, claim, finding, in: &state)
            throw ArchiveOwnershipLostError(key: key, finding: finding)
        }
    }

    /// Opens the directory and compares it, and the lock file at its path, with what `claim`
    /// holds: the open directory (or -1), and what differs, if anything does.
    private func check(_ claim: Claim, lockFile: URL) -> (directoryFD: Int32, finding: String?) {
        let directoryFD = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let finding: String? =
            if directoryFD < 0 || Identity.of(fd: directoryFD) != claim.directory {
                Identity.of(path: directory.path) == nil
                    ? "its directory \(directory.path) was removed (or renamed)"
                    : "its directory \(directory.path) was replaced (removed or renamed, and made anew)"
            } else if Identity.of(path: lockFile.path) != claim.lockFile {
                "its lock file \(lockFile.lastPathComponent) was deleted or replaced"
            } else {
                nil
            }
        return (directoryFD, finding)
    }

    /// Lets a lost key go: its lock closed, its writes refused until a restore claims it again.
    private func lose(_ key: String, _ claim: Claim, _ finding: String, in state: inout State) {
        Self.letGo(claim)
        state.owned[key] = nil
        state.refused[key] = .some(finding)
    }

    /// Checks again, after a write, that the path still leads to what the claim holds (see
    /// ``verify(_:lockFile:)``).
    func verifyAfterWrite(_ key: String, lockFile: URL) throws {
        close(try verify(key, lockFile: lockFile))
    }

    /// Whether the open file `fd` is a regular file (not a FIFO, a socket or a device).
    static func isRegularFile(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// The process recorded in a lock file by its owner, if any: its pid and its token (earlier
    /// versions recorded the pid alone). An owner records itself right after it takes the lock: a
    /// file still empty is read again, for up to about 10 ms.
    private static func owner(recordedIn lockFile: URL) -> (pid: Int32?, token: Substring?) {
        for _ in 0..<10 {
            let fd = open(lockFile.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return (nil, nil) }
            defer { close(fd) }
            guard isRegularFile(fd) else { return (nil, nil) }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(fd, &buffer, buffer.count)
            if count > 0 {
                let fields = String(decoding: buffer[..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace)
                return (fields.first.flatMap { Int32($0) }, fields.dropFirst().first)
            }
            usleep(1_000)
        }
        return (nil, nil)
    }
}

/// A FIFO, a socket or a device where an archive expects a regular file: refused without opening it
/// for reading or writing, since reading a FIFO blocks until someone writes to it.
public struct ArchiveSpecialFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path of the special file.
    public let path: String

    /// The error for the special file at `path`.
    public init(path: String) {
        self.path = path
    }

    public var description: String {
        "\(URL(fileURLWithPath: path).lastPathComponent) is not a regular file (a FIFO, socket or device); "
            + "it was not opened"
    }
}
