import Archive
import FlaskTestSupport
import Foundation
import Testing

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
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [file.lastPathComponent])
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
    }
}
