import Archive
import Dispatch
import FlaskTestSupport
import FlaskTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock on a path that can be unlinked is not ownership: what an owner does when the path no
/// longer leads to what it owns. Two stores of one directory stand for two processes (each holds
/// its own `flock`), as in `FileArchiveStoreTests.oneOwnerPerKey`.
@Suite("File store: ownership that survives the file system")
struct FileArchiveOwnershipTests {
    /// A store that owns `k` in a fresh directory, holding `"1"`.
    private func owner() throws -> (store: FileArchiveStore, directory: URL) {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data("1".utf8), forKey: "k")
        return (store, directory)
    }

    @Test(
        "the directory removed: the owner's writes throw, it never makes the directory again; a second owner keeps its writes"
    )
    func directoryRemoved() throws {
        let (first, directory) = try owner()
        try FileManager.default.removeItem(at: directory)
        #expect(throws: ArchiveOwnershipLostError.self) { try first.set(Data("2".utf8), forKey: "k") }
        #expect(!FileManager.default.fileExists(atPath: directory.path), "the lost owner made the directory again")
        // A second process starts on the path: it owns the key now.
        let second = try FileArchiveStore(directory: directory)
        try second.claim(key: "k")
        try second.set(Data("second".utf8), forKey: "k")
        // The first stays stopped: its writes never reach what the second wrote.
        #expect(throws: ArchiveOwnershipLostError.self) { try first.set(Data("3".utf8), forKey: "k") }
        #expect(throws: ArchiveOwnershipLostError.self) { try first.removeData(forKey: "k") }
        #expect(try second.data(forKey: "k") == Data("second".utf8))
    }

    @Test("the directory renamed: the owner's writes throw, and go neither to the new place nor to the path")
    func directoryRenamed() throws {
        let (first, directory) = try owner()
        let moved = directory.deletingLastPathComponent().appendingPathComponent("moved")
        try FileManager.default.moveItem(at: directory, to: moved)
        #expect(throws: ArchiveOwnershipLostError.self) { try first.set(Data("2".utf8), forKey: "k") }
        #expect(try FileArchiveStore(directory: moved).data(forKey: "k") == Data("1".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        let second = try FileArchiveStore(directory: directory)
        try second.set(Data("second".utf8), forKey: "k")
        #expect(throws: ArchiveOwnershipLostError.self) { try first.set(Data("3".utf8), forKey: "k") }
        #expect(try second.data(forKey: "k") == Data("second".utf8))
    }

    @Test("the lock file deleted: a second owner takes a fresh lock, and the first stops before it writes over it")
    func lockFileDeleted() throws {
        let (first, directory) = try owner()
        let lockFile = directory.appendingPathComponent(".\(FileArchiveStore.fileName(forKey: "k")).lock")
        #expect(FileManager.default.fileExists(atPath: lockFile.path))
        try FileManager.default.removeItem(at: lockFile)
        let second = try FileArchiveStore(directory: directory)
        try second.claim(key: "k")
        try second.set(Data("second".utf8), forKey: "k")
        #expect(throws: ArchiveOwnershipLostError.self) { try first.set(Data("2".utf8), forKey: "k") }
        #expect(try second.data(forKey: "k") == Data("second".utf8))
        // And the lost owner cannot claim it back while the second lives.
        #expect(throws: ArchiveKeyOwnedError.self) { try first.claim(key: "k") }
    }

    @Test("a claim notices the loss too; a restore's claim takes the key again once the path is free")
    func claimAfterLoss() throws {
        let (first, directory) = try owner()
        try FileManager.default.removeItem(at: directory)
        // The owner has not written since: a claim (a restore, `confirmOwnership`) finds the loss.
        #expect(throws: ArchiveOwnershipLostError.self) {
            try first.set(Data("2".utf8), forKey: "k")
        }
        try first.claim(key: "k")  // a restore: it reads what the path holds, and owns the key anew
        try first.set(Data("3".utf8), forKey: "k")
        #expect(try first.data(forKey: "k") == Data("3".utf8))
    }

    @Test("through an archiver: stored() throws ownershipLost, reported once, never retried, counted as no write")
    func archiverStopsAcknowledging() async throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let archiver = Archiver(store: try FileArchiveStore(directory: directory))
        let owner = NSObject()
        _ = archiver.restore(Int.self, key: "k", defaultValue: 0, owner: owner)
        archiver.scheduleWrite(key: "k", after: 3_600, owner: owner) { Data("1".utf8) }
        try await archiver.stored(key: "k")
        #expect(archiver.durabilityStatistics == ArchiveDurabilityStatistics(writes: 1, acknowledged: 1))
        try FileManager.default.removeItem(at: directory)
        let reports = Recorder<ArchiveProblem.Kind>()
        for value in 2...4 {
            archiver.scheduleWrite(
                key: "k", after: 3_600, owner: owner, encode: { Data("\(value)".utf8) },
                onFailure: { reports.append($0.kind) })
            await #expect(throws: ArchiveProblem.self) { try await archiver.stored(key: "k") }
        }
        #expect(reports.all == [.ownershipLost], "reported once")
        #expect(archiver.pendingKeys.isEmpty, "not retried: the key stays lost")
        #expect(archiver.durabilityStatistics == ArchiveDurabilityStatistics(writes: 1, acknowledged: 1))
        #expect(throws: ArchiveProblem.self) { try archiver.confirmOwnership(of: "k") }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        withExtendedLifetime(owner) {}
    }

    @Test("confirmOwnership(of:) throws keyInUse for a key another owner held at the restore, even once it is gone")
    func confirmOwnership() throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let second = Archiver(store: try FileArchiveStore(directory: directory))
        do {
            let first = Archiver(store: try FileArchiveStore(directory: directory))
            _ = first.restore(Int.self, key: "k", defaultValue: 0, owner: NSObject())
            try first.confirmOwnership(of: "k")
            let restored = second.restore(Int.self, key: "k", defaultValue: 0, owner: NSObject())
            #expect(restored.problems.map(\.kind) == [.keyInUse])
            // A restore wrote nothing and says what it did: read, and will not write.
            #expect(
                restored.problems.map(\.reason) == [
                    "another store of this process archives under k; restored what it holds, and this store will not write it"
                ])
            #expect(throws: ArchiveProblem.self) { try second.confirmOwnership(of: "k") }
        }
        // The first is gone; the second's restored value predates its last writes all the same.
        do {
            try second.confirmOwnership(of: "k")
            Issue.record("a refused archiver confirmed its ownership")
        } catch {
            #expect(error.kind == .keyInUse)
        }
        // A key nobody held is claimed by the confirmation.
        try second.confirmOwnership(of: "free")
    }

    @Test(
        "a FIFO where an archive is: refused at once, reported, and the archive thread goes on", .hangGuard
    )
    func fifoArchive() throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let store = try FileArchiveStore(directory: directory)
        #expect(mkfifo(store.fileURL(forKey: "k").path, 0o600) == 0)
        #expect(throws: ArchiveSpecialFileError.self) { _ = try store.data(forKey: "k") }
        // On the shared archive thread: a restore that blocked there would hold every archiver.
        let archiver = Archiver(store: store)
        let finished = DispatchSemaphore(value: 0)
        let kinds = Recorder<ArchiveProblem.Kind>()
        Thread.detachNewThread {
            for kind in archiver.restore(Int.self, key: "k", defaultValue: 7, owner: nil).problems.map(\.kind) {
                kinds.append(kind)
            }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 30) == .success, "the restore blocked on the FIFO")
        #expect(kinds.all == [.storeFailed(operation: "read")])
        let other = Archiver(store: InMemoryArchiveStore())
        try other.write(Data("1".utf8), key: "other")
    }

    @Test(
        "a FIFO as a key's lock file, or among the stale temporary files: refused or left alone, never blocking",
        .hangGuard)
    func fifoLockAndTemporary() throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(mkfifo(directory.appendingPathComponent(".stale.tmp").path, 0o600) == 0)
        let store = try FileArchiveStore(directory: directory)  // did not block on the FIFO
        let lockFile = directory.appendingPathComponent(".\(FileArchiveStore.fileName(forKey: "k")).lock")
        #expect(mkfifo(lockFile.path, 0o600) == 0)
        #expect(throws: ArchiveSpecialFileError.self) { try store.set(Data("1".utf8), forKey: "k") }
        #expect(throws: ArchiveSpecialFileError.self) { try store.claim(key: "k") }
    }
}
