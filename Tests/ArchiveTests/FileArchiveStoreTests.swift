import Archive
import FlaskLocking
import FlaskTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("File store: atomic, private, crash-safe")
struct FileArchiveStoreTests {
    @Test("files are written whole, readable by the owner only, in a private directory")
    func permissions() throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data("{\"a\":1}".utf8), forKey: "Fx.1.settings")
        let file = store.fileURL(forKey: "Fx.1.settings")
        let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(directoryMode == 0o700)
        #expect(try store.data(forKey: "Fx.1.settings") == Data("{\"a\":1}".utf8))
        try store.set(Data("{\"a\":2}".utf8), forKey: "Fx.1.settings")
        #expect(try store.data(forKey: "Fx.1.settings") == Data("{\"a\":2}".utf8))
        // No temporary files are left behind; the key's lock file stays while the store lives.
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
                == [".\(file.lastPathComponent).lock", file.lastPathComponent])
        try store.removeData(forKey: "Fx.1.settings")
        try store.removeData(forKey: "Fx.1.settings")
        #expect(try store.data(forKey: "Fx.1.settings") == nil)
    }

    @Test("the app's directory is in XDG_DATA_HOME, else in ~/.local/share, in a folder named for the app")
    func applicationDirectory() {
        func path(_ environment: [String: String], name: String? = "tool") -> String {
            FileArchiveStore.applicationDirectory(applicationName: name, environment: environment).path
        }
        #expect(path(["XDG_DATA_HOME": "/data", "HOME": "/home/u"]) == "/data/tool/archives")
        #expect(path(["HOME": "/home/u"]) == "/home/u/.local/share/tool/archives")
        // The specification ignores a relative or empty XDG_DATA_HOME.
        #expect(path(["XDG_DATA_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.local/share/tool/archives")
        #expect(path(["XDG_DATA_HOME": "", "HOME": "/home/u"]) == "/home/u/.local/share/tool/archives")
        #expect(path(["XDG_DATA_HOME": "/data"], name: "a/b") == "/data/a_b/archives")
        #expect(path(["XDG_DATA_HOME": "/data"], name: "..") == "/data/flask-app/archives")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
        #expect(path(["XDG_DATA_HOME": "/data"], name: nil) == "/data/\(executable)/archives")
    }

    @Test("a store whose directory is missing makes it again at the next write, private")
    func directoryMadeAtFirstWrite() throws {
        let home = temporaryDirectory()
        let directory = FileArchiveStore.applicationDirectory(
            applicationName: "tool", environment: ["XDG_DATA_HOME": home.path])
        let placed = try FileArchiveStore(directory: directory)
        try FileManager.default.removeItem(at: directory)
        #expect(try placed.data(forKey: "k") == nil)
        try placed.set(Data("1".utf8), forKey: "k")
        #expect(try placed.data(forKey: "k") == Data("1".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("any key is a safe file name")
    func keyEscaping() throws {
        let directory = temporaryDirectory()
        let store = try FileArchiveStore(directory: directory)
        for key in ["../../etc/passwd", "a/b", ".hidden", "spaces and é"] {
            try store.set(Data(key.utf8), forKey: key)
            #expect(try store.data(forKey: key) == Data(key.utf8))
            #expect(store.fileURL(forKey: key).deletingLastPathComponent().path == directory.path)
            #expect(FileArchiveStore.fileName(forKey: key) == store.fileURL(forKey: key).lastPathComponent)
        }
    }

    @Test("pending writes are flushed when the process exits normally")
    func flushOnExit() throws {
        let directory = temporaryDirectory()
        let process = Process()
        process.executableURL = siblingExecutable("ArchiveProbe")
        process.arguments = ["exit", directory.path, "on-exit"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let data = try FileArchiveStore(directory: directory).data(forKey: "on-exit")
        #expect(data.map { String(decoding: $0, as: UTF8.self).contains("42") } == true)
    }

    @Test("a process killed in a storm of writes leaves the previous or the new archive, never a torn one")
    func crashSafety() throws {
        let runs = ProcessInfo.processInfo.environment["FLASK_LONG"] == nil ? 30 : 100
        let directory = temporaryDirectory()
        let store = try FileArchiveStore(directory: directory)
        var lastCounter = 0
        for _ in 0..<runs {
            let process = Process()
            let output = Pipe()
            process.executableURL = siblingExecutable("ArchiveProbe")
            process.arguments = ["storm", directory.path, "storm"]
            process.standardOutput = output
            try process.run()
            _ = output.fileHandleForReading.readData(ofLength: 6)  // "ready\n"
            // Until one write is in (a slow disk, or the sanitizer, may take longer than a run's
            // 20 ms for the first), a run waits for it: at least one run then kills a process
            // that was writing, whatever the machine's speed.
            let deadline = Date().addingTimeInterval(60)
            while try store.data(forKey: "storm") == nil, Date() < deadline { usleep(1_000) }
            usleep(UInt32.random(in: 0...20_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            guard let data = try store.data(forKey: "storm") else { continue }
            struct Payload: Decodable {
                var counter: Int
                var filler: String
            }
            let payload = try JSONDecoder().decode(Payload.self, from: data)
            #expect(payload.filler.count == 64 * 1024)
            lastCounter = payload.counter
        }
        #expect(lastCounter > 0)
        // The last kill most likely cut a write short; the next store to open removes what it left.
        _ = try FileArchiveStore(directory: directory)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.filter { $0.hasSuffix(".tmp") } == [])
    }

    @Test("a temporary file of a killed write is removed when a store opens; one being written is left alone")
    func staleTemporaryFiles() throws {
        let directory = temporaryDirectory()
        let store = try FileArchiveStore(directory: directory)
        try store.set(Data("1".utf8), forKey: "k")
        let stale = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
        let live = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
        #expect(FileManager.default.createFile(atPath: stale.path, contents: Data("torn".utf8)))
        #expect(FileManager.default.createFile(atPath: live.path, contents: Data("half".utf8)))
        // A writer at work holds its file locked (here, this process on another descriptor).
        let writer = open(live.path, O_RDONLY)
        defer { close(writer) }
        #expect(flock(writer, LOCK_EX) == 0)
        _ = try FileArchiveStore(directory: directory)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
        #expect(try store.data(forKey: "k") == Data("1".utf8))
    }

    /// Keys that an escape of variable width, a case-blind file system or an unnormalized spelling
    /// could send to one file.
    static let trickyKeys: [String] = [
        "€", " AC", "%20AC", "😀", "\u{1F}600", "%1F600", "%", "%25", "%2525", ".", "%2E", "..", ".a", "%2Ea", "a.",
        "a", "A", "%41", "%61", "é", "%C3%A9", "%E9", "E9", "~", "%7E", "a~b", "/", "\\", ":", "\u{0}", "",
        "\u{7F}", "\u{80}", "\u{FFFF}", "\u{10FFFF}", "%%", "a%", "\u{FB01}", "fi", "\u{C5}", "\u{212B}", "A\u{30A}",
        "\u{212A}", "K", "k",
    ]

    @Test("no two keys share a file: every pair of tricky keys is stored apart, in a case-blind directory too")
    func injectiveNames() throws {
        let keys = FileArchiveStoreTests.trickyKeys
        // The keys Swift calls equal (`Å` as one scalar or as `A` and a ring) are one key.
        var distinct: [String] = []
        for key in keys where !distinct.contains(key) { distinct.append(key) }
        var names: [String: String] = [:]
        for key in distinct {
            let name = FileArchiveStore.fileName(forKey: key)
            // Compared case-blind, as macOS's file system compares names.
            if let other = names[name.lowercased()] {
                Issue.record("\(key.debugDescription) and \(other.debugDescription) share \(name)")
            }
            names[name.lowercased()] = key
            #expect(name.utf8.count <= 255)
            #expect(!name.contains("/"))
            #expect(!name.hasPrefix("."))
        }
        // And on disk: each key reads back its own bytes.
        let store = try FileArchiveStore(directory: temporaryDirectory())
        for key in distinct { try store.set(Data(key.utf8), forKey: key) }
        for key in distinct { #expect(try store.data(forKey: key) == Data(key.utf8), "\(key.debugDescription)") }
        #expect(try store.data(forKey: "A\u{30A}") == Data("Å".utf8))
        // Every pair of one- and two-scalar keys from the tricky scalars.
        let scalars: [Unicode.Scalar] = ["%", "2", "0", "A", "a", "C", "c", "€", " ", ".", "~", "\u{1F}", "😀"]
        var pairs: [String: String] = [:]
        for first in scalars {
            for second in [nil] + scalars {
                var key = String(first)
                if let second { key.unicodeScalars.append(second) }
                let name = FileArchiveStore.fileName(forKey: key).lowercased()
                #expect(pairs[name] == nil, "\(key.debugDescription) and \(pairs[name]?.debugDescription ?? "")")
                pairs[name] = key
            }
        }
    }

    @Test("a key too long for a file name is stored under its digest, recording the key")
    func longKeys() throws {
        let directory = temporaryDirectory()
        let store = try FileArchiveStore(directory: directory)
        let keys = [
            String(repeating: "😀", count: 85), String(repeating: "漢", count: 85), String(repeating: "k", count: 10_000),
            String(repeating: "k", count: 9_999) + "l", "Fx.1." + String(repeating: "a", count: 300),
        ]
        for key in keys {
            try store.set(Data(key.suffix(3).utf8), forKey: key)
            let name = store.fileURL(forKey: key).lastPathComponent
            #expect(name.utf8.count < 200)
            #expect(name.contains("~"))
        }
        for key in keys { #expect(try store.data(forKey: key) == Data(key.suffix(3).utf8)) }
        // A file per key, and its lock file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2 * keys.count)
        // The file records its key: a file under the name that records another key is not this key's.
        let key = keys[2]
        let url = store.fileURL(forKey: key)
        let other = try Data(contentsOf: store.fileURL(forKey: keys[3]))
        try other.write(to: url)
        #expect(try store.data(forKey: key) == nil)
        // Written again, the key takes the next candidate and leaves the other key's file alone.
        try store.set(Data("new".utf8), forKey: key)
        #expect(try store.data(forKey: key) == Data("new".utf8))
        #expect(try Data(contentsOf: url) == other)
        try store.removeData(forKey: key)
        #expect(try store.data(forKey: key) == nil)
        #expect(try Data(contentsOf: url) == other)
    }

    @Test("an archive written under an earlier version's name is found, and removed with the key")
    func legacyNames() throws {
        let directory = temporaryDirectory()
        let store = try FileArchiveStore(directory: directory)
        // Earlier versions kept letters as they were and escaped other scalars as %X..., however wide.
        let legacy: [(key: String, file: String)] = [
            ("Fx.1.settings", "Fx.1.settings.json"), ("Fx.1.é", "Fx.1.é.json"), ("Fx.1.€", "Fx.1.%20AC.json"),
            (".hidden", "%2Ehidden.json"),
        ]
        for (index, entry) in legacy.enumerated() {
            try Data("\(index)".utf8).write(to: directory.appendingPathComponent(entry.file))
        }
        for (index, entry) in legacy.enumerated() {
            #expect(try store.data(forKey: entry.key) == Data("\(index)".utf8), "\(entry.key)")
        }
        // A write goes to the key's own name, which is read from then on.
        try store.set(Data("new".utf8), forKey: "Fx.1.settings")
        #expect(try store.data(forKey: "Fx.1.settings") == Data("new".utf8))
        try store.removeData(forKey: "Fx.1.settings")
        #expect(try store.data(forKey: "Fx.1.settings") == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Fx.1.settings.json").path))
        // A name an earlier version gave one key that is another key's name now is never read or
        // removed as the first key's (found from outside: ` 41` is `%2041.json`, which an earlier
        // version gave `⁁`).
        try store.set(Data("space-41".utf8), forKey: " 41")
        #expect(try store.data(forKey: "\u{2041}") == nil)
        try store.removeData(forKey: "\u{2041}")
        #expect(try store.data(forKey: " 41") == Data("space-41".utf8))
        // An earlier version's name too long for the file system names no file.
        #expect(try store.data(forKey: String(repeating: "😀", count: 85)) == nil)
        // A key named by a digest now (70 capitals, each escaped) whose earlier name was short
        // enough to exist: read, and written under its own name from then on (found by review:
        // a read of such a key had stopped looking there, and its first write removed the file).
        let capitals = String(repeating: "A", count: 70)
        try Data("old".utf8).write(to: directory.appendingPathComponent(capitals + ".json"))
        #expect(try store.data(forKey: capitals) == Data("old".utf8))
        try store.set(Data("new".utf8), forKey: capitals)
        #expect(try store.data(forKey: capitals) == Data("new".utf8))
        try store.removeData(forKey: capitals)
        #expect(try store.data(forKey: capitals) == nil)
    }

    @Test("two stores of one directory: the first to write a key owns it; the other is refused and writes nothing")
    func oneOwnerPerKey() throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let first: FileArchiveStore? = try FileArchiveStore(directory: directory)
        let second = try FileArchiveStore(directory: directory)
        try first?.set(Data("1".utf8), forKey: "k")
        let copy = first  // a copy of a store is the same owner
        try copy?.set(Data("2".utf8), forKey: "k")
        #expect(throws: ArchiveKeyOwnedError(key: "k", ownerProcess: getpid())) {
            try second.set(Data("3".utf8), forKey: "k")
        }
        #expect(throws: ArchiveKeyOwnedError.self) { try second.removeData(forKey: "k") }
        #expect(throws: ArchiveKeyOwnedError.self) { try second.claim(key: "k") }
        #expect(try second.data(forKey: "k") == Data("2".utf8), "a refused store still reads")
        try second.set(Data("other".utf8), forKey: "other")  // another key is free
        withExtendedLifetime(first) {}
    }

    @Test("the owner gone, a refused store's writes stay refused until a claim (a restore) takes the key over")
    func takeOverAfterOwner() throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let second = try FileArchiveStore(directory: directory)
        do {
            let first = try FileArchiveStore(directory: directory)
            try first.set(Data("1".utf8), forKey: "k")
            #expect(throws: ArchiveKeyOwnedError.self) { try second.set(Data("2".utf8), forKey: "k") }
        }
        #expect(throws: ArchiveKeyOwnedError.self) { try second.set(Data("2".utf8), forKey: "k") }
        try second.claim(key: "k")
        try second.set(Data("3".utf8), forKey: "k")
        #expect(try second.data(forKey: "k") == Data("3".utf8))
    }

    @Test("a key let go by a store is not refused to the next, while this process starts children meanwhile")
    func takeOverWhileSpawning() throws {
        // A child started by posix_spawn holds a copy of every open file until it runs its
        // program, the lock file of a store just let go included: the lock outlives the store
        // by that moment. Another store of this process must not read it as a live owner.
        let spawning = LockedValue(true)
        let spawner = Thread {
            while spawning.withLock({ $0 }) {
                var pid: pid_t = 0
                var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
                defer { free(argv[0]) }
                if posix_spawn(&pid, "/bin/true", nil, nil, &argv, environ) == 0 {
                    var status: Int32 = 0
                    waitpid(pid, &status, 0)
                }
            }
        }
        spawner.start()
        defer { spawning.withLock { $0 = false } }
        let directory = temporaryDirectory().appendingPathComponent("archives")
        for round in 0..<300 {
            do {
                let first = try FileArchiveStore(directory: directory)
                try first.set(Data("\(round)".utf8), forKey: "k")
            }
            let next = try FileArchiveStore(directory: directory)
            try next.claim(key: "k")
            try next.set(Data("next".utf8), forKey: "k")
        }
    }

    @Test("two archivers over one directory: the second's write and its stored() are refused with keyInUse")
    func twoArchivers() async throws {
        let directory = temporaryDirectory().appendingPathComponent("archives")
        let first = Archiver(store: try FileArchiveStore(directory: directory))
        let second = Archiver(store: try FileArchiveStore(directory: directory))
        let (firstOwner, secondOwner) = (NSObject(), NSObject())
        _ = first.restore(Int.self, key: "k", defaultValue: 0, owner: firstOwner)
        // A restore without an owner only reads: it takes nothing and is refused nothing.
        #expect(second.restore(Int.self, key: "k", defaultValue: 0).problems.isEmpty)
        let restored = second.restore(Int.self, key: "k", defaultValue: 0, owner: secondOwner)
        #expect(restored.problems.map(\.kind) == [.keyInUse])
        second.scheduleWrite(key: "k", after: 3_600) { Data("2".utf8) }
        await #expect(throws: ArchiveProblem.self) { try await second.stored(key: "k") }
        first.scheduleWrite(key: "k", after: 3_600) { Data("1".utf8) }
        try await first.stored(key: "k")
        #expect(try FileArchiveStore(directory: directory).data(forKey: "k") == Data("1".utf8))
        withExtendedLifetime((firstOwner, secondOwner)) {}
    }
}
