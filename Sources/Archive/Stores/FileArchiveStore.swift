import FlaskLocking
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Stores each archive in its own file in a directory: one the app chooses, or the app's data
/// directory (``init(applicationName:)``, the default store on Linux).
///
/// Writes are atomic: the bytes go to a temporary file in the same directory, which is flushed to
/// disk (`fsync`) and then renamed over the old file, so a crash leaves either the previous archive
/// or the new one, never a torn file. Files are created readable and writable by the owner only
/// (mode 0600), in a directory with mode 0700. The temporary file of a write cut short (the
/// process killed) is removed the next time a store opens the directory.
///
/// Each key has a file of its own, and no two keys share one, even on a file system that ignores
/// case: the name spells the key out, with every byte other than a lowercase ASCII letter, a digit,
/// `-`, `_` or `.` escaped as `%XX` (`Fx.1.settings` is `%46x.1.settings.json`, `Fx.1.€` is
/// `%46x.1.%E2%82%AC.json`). A key whose spelling would be
/// longer than 200 bytes is named by its SHA-256 digest instead, after the first part of its
/// spelling, and its file starts with a line recording the whole key, checked when it is read.
/// A file named the way earlier versions named the key is read when the key has no file yet.
///
/// **One owner per key, across processes**: a store owns a key from its first write, or a claim of
/// it (a substance's restore claims), by an advisory lock (`flock`) on a file beside the archive
/// (`.<file name>.lock`), for as long as the store lives; the kernel lets the lock go when the
/// process ends, `kill -9` included. Reading (`data(forKey:)`) claims nothing.
/// Another store of the same directory, in another process or this one, that would write or remove
/// the key throws ``ArchiveKeyOwnedError`` (naming the owning process) and writes nothing; its
/// restore still reads, and is reported as ``ArchiveProblem/Kind/keyInUse``. A refused store is not
/// let in when the owner goes: its state predates the owner's last writes. A store made after
/// that (a restarted process) restores what the owner wrote, and owns the key. Copies of one store
/// value are one owner. A claim that finds the key held by another store of this process first
/// lets the archive threads finish the writes they were given (a store whose owner is gone goes
/// with them), then waits up to about a second for that store to go; so does a claim of a key
/// whose lock a child process just started still holds a copy of: neither is taken for a live
/// owner before that.
///
/// A lock on a path is ownership only while the path leads to it: an owner checks, at each write,
/// that the directory is the one it claimed the key in and the lock file the one it locked. Once
/// the directory is removed or renamed, or the lock file deleted or replaced, the key is lost: the
/// write throws ``ArchiveOwnershipLostError``, and so does every later one, until the key is
/// restored again (which claims it anew, reading what the path holds then). The store never makes
/// the directory again for a key it owned. A write acknowledged is in the directory the path leads
/// to, checked after its rename.
///
/// A FIFO, socket or device where a file is expected is refused (``ArchiveSpecialFileError``),
/// never opened for reading, so it never blocks the archive thread.
public struct FileArchiveStore: ArchiveLogStore {
    /// The directory holding the archives.
    public var directory: URL { ownership.directory }
    /// The directory and the keys this store owns, shared by its copies: one reference, so that
    /// the store fits an existential's inline buffer and a copy costs one retain (every commit of
    /// an archived substance copies the store into its pending write; S1r).
    private let ownership: ArchiveKeyOwnership
    /// The logs this store appended to whose directory entry it synced: an append to one of them
    /// syncs the file alone (a second `fsync` per durable write, for a name already durable).
    private let syncedLogs = LockedValue<Set<String>>([])

    /// - Parameter directory: created (with mode 0700) if missing.
    public init(directory: URL) throws {
        self.ownership = ArchiveKeyOwnership(directory: directory)
        try createDirectory()
        removeStaleTemporaryFiles()
    }

    /// A store in the app's data directory, ``applicationDirectory(applicationName:environment:)``,
    /// created (mode 0700) at the first write, so that making the store never fails.
    ///
    /// - Parameter applicationName: the folder's name; the executable's name when nil. Set it
    ///   before the first substance restores: `Archiver.shared.store = FileArchiveStore(applicationName: "my-tool")`.
    public init(applicationName: String? = nil) {
        self.ownership = ArchiveKeyOwnership(
            directory: FileArchiveStore.applicationDirectory(applicationName: applicationName))
        removeStaleTemporaryFiles()
    }

    /// Where an app's archives live by default, following the XDG base directory specification:
    /// `$XDG_DATA_HOME/<applicationName>/archives`, or `~/.local/share/<applicationName>/archives`
    /// when `XDG_DATA_HOME` is unset, empty or not an absolute path.
    ///
    /// - Parameters:
    ///   - applicationName: the folder's name; the executable's name when nil.
    ///   - environment: the variables to read `XDG_DATA_HOME` and `HOME` from.
    public static func applicationDirectory(
        applicationName: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let dataHome: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share")
        }
        let name = applicationName ?? executableName
        return dataHome.appendingPathComponent(safeName(name), isDirectory: true)
            .appendingPathComponent("archives", isDirectory: true)
    }

    /// The name of the running executable, as a folder name.
    static var executableName: String {
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
        return name.isEmpty ? ProcessInfo.processInfo.processName : name
    }

    /// `name` as one path component: no separators, not empty, not `.` or `..`.
    private static func safeName(_ name: String) -> String {
        let cleaned = name.replacingOccurrences(of: "/", with: "_")
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "flask-app" : cleaned
    }

    private func createDirectory() throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The file that holds `key` (see the naming rules in the type's documentation). For a key
    /// named by digest this is the first candidate; a second key with the same digest, which
    /// SHA-256 makes as good as impossible, would be stored beside it.
    public func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(FileArchiveStore.fileName(forKey: key))
    }

    /// The name of the file that holds `key`, in any directory: see ``fileURL(forKey:)``.
    public static func fileName(forKey key: String) -> String {
        ArchiveFileName(key).name()
    }

    /// The contents of the key's file with the patches of its log applied, nil when there is none.
    ///
    /// Safe beside the store's own writes and compactions on other threads: what it returns is a
    /// value the key had.
    ///
    /// A key with no file under its name is looked up under the name earlier versions gave it, so
    /// that an archive written before the upgrade is found; the next write stores it under its own
    /// name, and ``removeData(forKey:)`` removes both.
    public func data(forKey key: String) throws -> Data? {
        let name = ArchiveFileName(key)
        // Keys by digest have no log: their file is the value, or the file an earlier version
        // named for them (a long key of letters had a short enough name then).
        guard !name.isDigest else {
            if let (_, data) = try locate(name) { return data }
            return try legacyContents(of: key)
        }
        while true {
            // A compaction renames a new snapshot into place, then the log without the patches
            // that snapshot now holds. The old snapshot read with the new log would lose those
            // patches: the snapshot is read from a file held open while the log is read, and the
            // read is made again when its name no longer leads to that file. (The new snapshot
            // with the old log is the state a crash between the renames leaves, and reads right.)
            let url = directory.appendingPathComponent(name.name())
            let value: Data?? = try withContents(of: url) { file, held in
                let snapshot = try file ?? legacyContents(of: key)
                // The value now: the snapshot with the patches of the log applied. Checked with no
                // log too: a compaction that folded every patch removes the log, and the old
                // snapshot alone would lack them all.
                let log = try log(of: name)
                guard ArchiveKeyOwnership.Identity.of(path: url.path) == held else { return nil }
                guard let log, !log.isEmpty else { return .some(snapshot) }
                do {
                    return .some(try ArchiveLog(log).applied(to: snapshot, key: key))
                } catch {
                    // A value that is not JSON written over a key with a log: its file is renamed
                    // into place, then the log removed. Read between the two, the log is not this
                    // file's.
                    if (try? self.log(of: name)) == nil { return nil }
                    throw error
                }
            }
            // nil: read again.
            if let value { return value }
        }
    }

    /// The bytes of the file an earlier version named `key` (``legacyURL(of:)``), nil when there is
    /// none.
    private func legacyContents(of key: String) throws -> Data? {
        try legacyURL(of: key).flatMap { try contents(of: $0) }
    }

    /// The file an earlier version named `key`, unless that name is `key`'s own, or another key's
    /// under the current names (` 41` is `%2041.json`, which an earlier version gave `⁁`, U+2041):
    /// a file that may be another key's is never read or removed as this key's.
    private func legacyURL(of key: String) -> URL? {
        let legacy = ArchiveFileName.legacyName(key)
        guard legacy != ArchiveFileName(key).name() else { return nil }
        if let owner = ArchiveFileName.key(named: legacy), owner != key { return nil }
        // On a file system that ignores case, the old name may open another key's file under a
        // name that differs only in case (`Abc.json` opens `abc.json`, key `abc`'s).
        let folded = ArchiveFileName.caseFolded(legacy)
        if folded != legacy, let owner = ArchiveFileName.key(named: folded), owner != key,
            sameFile(legacy, folded)
        {
            return nil
        }
        return directory.appendingPathComponent(legacy)
    }

    /// Whether the names `a` and `b` in the directory open one file.
    private func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(directory.appendingPathComponent(a).path, &first) == 0,
            stat(directory.appendingPathComponent(b).path, &second) == 0
        else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// The file of `name` and the archive it holds, or nil when it has none. For a name by digest,
    /// the candidates are read in turn until one records the key or one is missing.
    private func locate(_ name: ArchiveFileName) throws -> (URL, Data)? {
        guard name.isDigest else {
            let url = directory.appendingPathComponent(name.name())
            return try contents(of: url).map { (url, $0) }
        }
        for attempt in 1... {
            let url = directory.appendingPathComponent(name.name(attempt: attempt))
            guard let contents = try contents(of: url) else { return nil }
            if let archive = name.archive(in: contents) { return (url, archive) }
        }
        return nil
    }

    /// Where `name`'s archive is written: its file, or for a name by digest the first candidate
    /// that records the key or is free.
    private func destination(of name: ArchiveFileName) throws -> URL {
        guard name.isDigest else { return directory.appendingPathComponent(name.name()) }
        for attempt in 1... {
            let url = directory.appendingPathComponent(name.name(attempt: attempt))
            guard let contents = try contents(of: url) else { return url }
            if name.archive(in: contents) != nil { return url }
        }
        fatalError("unreachable: the candidates never end")
    }

    /// The bytes of the file at `url`, nil when there is none.
    ///
    /// - Throws: ``ArchiveSpecialFileError`` for a FIFO, a socket or a device (opened without
    ///   blocking, and not read: a FIFO's read would wait for a writer); the `POSIXError` of a read
    ///   that fails.
    private func contents(of url: URL) throws -> Data? {
        try withContents(of: url) { data, _ in data }
    }

    /// Calls `body` with the bytes of the file at `url` and what file it is (nil and nil when there
    /// is none), the file held open meanwhile: its identity cannot pass to another file while
    /// `body` compares it with what the name leads to. Throws as ``contents(of:)``.
    private func withContents<Result>(
        of url: URL, _ body: (Data?, ArchiveKeyOwnership.Identity?) throws -> Result
    ) throws -> Result {
        let fd = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            // A name the file system cannot hold names no file (an earlier version's long name).
            if errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG { return try body(nil, nil) }
            throw POSIXError(errno: errno)
        }
        defer { close(fd) }
        guard ArchiveKeyOwnership.isRegularFile(fd) else { throw ArchiveSpecialFileError(path: url.path) }
        return try body(try FileArchiveStore.readAll(fd), ArchiveKeyOwnership.Identity.of(fd: fd))
    }

    /// Everything the regular file `fd` holds, from its start.
    private static func readAll(_ fd: Int32) throws -> Data {
        try FileHandle(fileDescriptor: fd, closeOnDealloc: false).readToEnd() ?? Data()
    }

    /// Replaces the key's file atomically: the old contents or the new, never a torn file.
    ///
    /// The bytes are written into the directory the store owns the key in, and only while the path
    /// still leads there: the directory and the key's lock file are checked before the write,
    /// before its rename and after it (see the type's documentation, "One owner per key").
    ///
    /// - Throws: ``ArchiveKeyOwnedError`` while another live store owns the key;
    ///   ``ArchiveOwnershipLostError`` once the store no longer finds the key where it owned it
    ///   (the bytes may then be in a directory that was renamed, never where another owner reads);
    ///   the `POSIXError` of the call that failed (`ENOSPC` on a full disk, `EACCES` or `EROFS`
    ///   where the directory cannot be written, ...); the file then holds what it held.
    public func set(_ data: Data, forKey key: String) throws {
        let name = ArchiveFileName(key)
        try writing(name) { directoryFD, lockFile in
            // A key with a log: the value goes whole at its end, so that the log, which the value is
            // read through, stays in order (a snapshot written beside it would be read with older
            // patches applied over it). A value that is not JSON cannot go there: it is written as the
            // file, and the log removed after, so that a crash between reads the log over a file that
            // is not JSON, which fails (the key is then not written over), never an older value.
            let removesLog = try logSize(forKey: key) > 0
            if removesLog, (try? JSONTree.parse(data)) != nil {
                return try append(ArchiveLog.wholeValueLine(data), toLogOf: name, in: directoryFD)
            }
            try replaceFile(
                destination(of: name).lastPathComponent, in: directoryFD, with: data,
                keyLine: name.isDigest ? name.keyLine : nil,
                // The write may have taken a while: the path must still lead here before the rename.
                beforeRename: { try ownership.verifyAfterWrite(name.key, lockFile: lockFile) },
                afterRename: {
                    // The key has its own file now: the one an earlier version named for it goes, so
                    // that it never comes back (after a removal) or reaches a key that shared its name.
                    if let legacy = legacyURL(of: key) { unlinkat(directoryFD, legacy.lastPathComponent, 0) }
                    if removesLog, unlinkat(directoryFD, logFileName(of: name), 0) != 0 && errno != ENOENT {
                        throw POSIXError(errno: errno)
                    }
                })
        }
    }

    /// Deletes the key's file, if any, and the file an earlier version named for it.
    ///
    /// - Throws: as ``set(_:forKey:)``.
    public func removeData(forKey key: String) throws {
        let name = ArchiveFileName(key)
        try writing(name) { directoryFD, _ in
            // A key with a log: the removal is appended to it first, so that a crash between the
            // deletions below reads the value removed, neither the snapshot without the log's patches
            // nor the log over nothing. The log goes last.
            let hasLog = try logSize(forKey: key) > 0
            if hasLog { try append(ArchiveLog.removalLine, toLogOf: name, in: directoryFD) }
            // The earlier version's file before the key's own: a reader (or the next launch, after a
            // crash between the two) that finds the key's file gone looks there, and must not find an
            // older value.
            if let legacy = legacyURL(of: key), unlinkat(directoryFD, legacy.lastPathComponent, 0) != 0,
                errno != ENOENT && errno != ENAMETOOLONG
            {
                throw POSIXError(errno: errno)
            }
            if let (url, _) = try locate(name) {
                if unlinkat(directoryFD, url.lastPathComponent, 0) != 0 && errno != ENOENT {
                    throw POSIXError(errno: errno)
                }
            }
            if hasLog {
                if unlinkat(directoryFD, logFileName(of: name), 0) != 0 && errno != ENOENT {
                    throw POSIXError(errno: errno)
                }
                fsync(directoryFD)
            }
        }
    }

    // MARK: The log (ArchiveLogStore)

    /// The name of the log of `name`'s key, beside its archive: `<file name>.log`, JSON lines.
    private func logFileName(of name: ArchiveFileName) -> String {
        name.name() + ".log"
    }

    /// The key's log, nil when it has none (keys named by a digest have none: they are written
    /// whole).
    private func log(of name: ArchiveFileName) throws -> Data? {
        guard !name.isDigest else { return nil }
        return try contents(of: directory.appendingPathComponent(logFileName(of: name)))
    }

    /// The size of the key's log in bytes (0 without one).
    public func logSize(forKey key: String) throws -> Int {
        let name = ArchiveFileName(key)
        guard !name.isDigest else { return 0 }
        var status = stat()
        guard stat(directory.appendingPathComponent(logFileName(of: name)).path, &status) == 0 else {
            if errno == ENOENT { return 0 }
            throw POSIXError(errno: errno)
        }
        return Int(status.st_size)
    }

    /// Appends whole lines to the key's log and syncs it, in the directory the store owns the key
    /// in, as ``set(_:forKey:)`` writes (checked before and after). A log a crash cut short (its
    /// last line without a newline) is trimmed to its whole lines first.
    ///
    /// - Throws: as ``set(_:forKey:)``; `ENOTSUP` for a key named by a digest.
    public func appendLog(_ lines: Data, forKey key: String) throws {
        let name = ArchiveFileName(key)
        guard !name.isDigest else { throw POSIXError(errno: ENOTSUP) }
        try writing(name) { directoryFD, _ in try append(lines, toLogOf: name, in: directoryFD) }
    }

    private func append(_ lines: Data, toLogOf name: ArchiveFileName, in directoryFD: Int32) throws {
        let fd = openat(directoryFD, logFileName(of: name), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else { throw POSIXError(errno: errno) }
        defer { close(fd) }
        guard ArchiveKeyOwnership.isRegularFile(fd) else {
            throw ArchiveSpecialFileError(path: directory.appendingPathComponent(logFileName(of: name)).path)
        }
        let size = try FileArchiveStore.trimToWholeLines(fd)
        try FileArchiveStore.writeAll(lines, to: fd)
        guard fsync(fd) == 0 else { throw POSIXError(errno: errno) }
        // A log made now (or by a process that may have died before syncing its name): its name is
        // made durable too, once.
        let logName = logFileName(of: name)
        if size == 0 || !syncedLogs.withLock({ $0.contains(logName) }) {
            guard fsync(directoryFD) == 0 else { throw POSIXError(errno: errno) }
            syncedLogs.withLock { _ = $0.insert(logName) }
        }
    }

    /// Writes `snapshot` as the key's value, then drops the first `bytes` bytes of its log: both
    /// atomically (files renamed into place), the snapshot first, so that a crash between leaves a
    /// snapshot and a log whose first patches it already holds (read again, they change nothing
    /// the later ones do not set again).
    public func compactLog(forKey key: String, snapshot: Data, droppingFirst bytes: Int) throws {
        let name = ArchiveFileName(key)
        guard !name.isDigest else { throw POSIXError(errno: ENOTSUP) }
        try writing(name) { directoryFD, lockFile in
            try replaceFile(name.name(), in: directoryFD, with: snapshot, keyLine: nil)
            try ownership.verifyAfterWrite(name.key, lockFile: lockFile)
            let kept = try logTail(of: name, in: directoryFD, from: bytes)
            if kept.isEmpty {
                if unlinkat(directoryFD, logFileName(of: name), 0) != 0 && errno != ENOENT {
                    throw POSIXError(errno: errno)
                }
                fsync(directoryFD)
            } else {
                try replaceFile(logFileName(of: name), in: directoryFD, with: kept, keyLine: nil)
            }
        }
    }

    /// The bytes of the key's log from `offset` on (what was appended after a compaction began).
    private func logTail(of name: ArchiveFileName, in directoryFD: Int32, from offset: Int) throws -> Data {
        let fd = openat(directoryFD, logFileName(of: name), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return Data() }
            throw POSIXError(errno: errno)
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw POSIXError(errno: errno) }
        let count = Int(status.st_size) - offset
        guard count > 0 else { return Data() }
        return try FileArchiveStore.readExactly(count, of: fd, at: offset)
    }

    /// Replaces the file `fileName` of the directory `directoryFD` with `data` (after `keyLine`, if
    /// any), atomically: a temporary file written and synced, `beforeRename` called, the file
    /// renamed into place, `afterRename` called, and the directory synced.
    private func replaceFile(
        _ fileName: String, in directoryFD: Int32, with data: Data, keyLine: Data?,
        beforeRename: () throws -> Void = {}, afterRename: () throws -> Void = {}
    ) throws {
        let temporary = ".\(UUID().uuidString).tmp"
        let fd = openat(directoryFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(errno: errno) }
        // Held until the file is closed, or the process dies: a store that opens meanwhile leaves
        // the file alone, and removes it once nobody holds it (see `removeStaleTemporaryFiles()`).
        _ = flock(fd, LOCK_EX)
        var ok = false
        defer {
            if !ok { unlinkat(directoryFD, temporary, 0) }
        }
        // Closed (and so unlocked) only once renamed: a store that opens meanwhile leaves it alone.
        defer { close(fd) }
        if let keyLine { try FileArchiveStore.writeAll(keyLine, to: fd) }
        try FileArchiveStore.writeAll(data, to: fd)
        guard fsync(fd) == 0 else { throw POSIXError(errno: errno) }
        try beforeRename()
        guard renameat(directoryFD, temporary, directoryFD, fileName) == 0 else { throw POSIXError(errno: errno) }
        ok = true
        try afterRename()
        // Make the rename itself durable.
        fsync(directoryFD)
    }

    /// Cuts the open log `fd` after its last newline: a line a crash cut short was never
    /// acknowledged, and a line appended after it would be read as part of it.
    @discardableResult
    private static func trimToWholeLines(_ fd: Int32) throws -> Int {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw POSIXError(errno: errno) }
        var size = Int(status.st_size)
        guard size > 0 else { return 0 }
        var byte: UInt8 = 0
        guard pread(fd, &byte, 1, off_t(size - 1)) == 1 else { throw POSIXError(errno: errno) }
        guard byte != UInt8(ascii: "\n") else { return size }
        // Read back from the end to the last newline, a block at a time.
        var buffer = [UInt8](repeating: 0, count: 4096)
        while size > 0 {
            let count = min(buffer.count, size)
            let read = pread(fd, &buffer, count, off_t(size - count))
            guard read == count else { throw POSIXError(errno: errno) }
            if let newline = buffer[..<count].lastIndex(of: UInt8(ascii: "\n")) {
                size = size - count + newline + 1
                break
            }
            size -= count
        }
        guard ftruncate(fd, off_t(size)) == 0 else { throw POSIXError(errno: errno) }
        return size
    }

    /// Claims `key` for this store (see the type's documentation); a key refused or lost before is
    /// tried again, since a restore reads what the path holds now. A key the store owns is checked
    /// to be owned still (the path leads to its directory and its lock file).
    ///
    /// - Throws: ``ArchiveKeyOwnedError`` while another live store owns the key; the `POSIXError` of
    ///   a lock file that cannot be made.
    public func claim(key: String) throws {
        try claim(ArchiveFileName(key), retrying: true)
    }

    /// Runs `write` with the key's directory open (`directoryFD`, closed after), once this store
    /// owns the key and the key's path leads to the directory it owns it in; the write is
    /// acknowledged (returns) only if the path still leads there after it, where the next owner
    /// will read it. Every write goes through here (see the type's documentation, "One owner per
    /// key").
    private func writing(
        _ name: ArchiveFileName, _ write: (_ directoryFD: Int32, _ lockFile: URL) throws -> Void
    ) throws {
        try claim(name, retrying: false)
        let lockFile = lockFileURL(of: name)
        let directoryFD = try ownership.verify(name.key, lockFile: lockFile)
        defer { close(directoryFD) }
        try write(directoryFD, lockFile)
        try ownership.verifyAfterWrite(name.key, lockFile: lockFile)
    }

    /// The lock file of `name`'s key, beside its archive.
    private func lockFileURL(of name: ArchiveFileName) -> URL {
        directory.appendingPathComponent(".\(name.name()).lock")
    }

    private func claim(_ name: ArchiveFileName, retrying: Bool) throws {
        let lockFile = lockFileURL(of: name)
        do {
            try ownership.claim(name.key, lockFile: lockFile, retrying: retrying)
        } catch let error as POSIXError where error.code == .ENOENT {
            // The directory is made at the first write (see `init(applicationName:)`).
            try createDirectory()
            try ownership.claim(name.key, lockFile: lockFile, retrying: retrying)
        }
    }

    /// Removes the temporary files of writes that were cut short (the process was killed between
    /// creating one and renaming it). A file whose writer is still at work is locked and left alone.
    private func removeStaleTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let path = directory.appendingPathComponent(name).path
            // Without blocking: a FIFO under such a name would hold the open until someone wrote.
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if ArchiveKeyOwnership.isRegularFile(fd), flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
            close(fd)
        }
    }
}

extension POSIXError {
    init(errno code: Int32) {
        self.init(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
