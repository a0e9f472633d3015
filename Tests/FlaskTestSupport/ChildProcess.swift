import Foundation

/// A fresh directory under the temporary directory.
public func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("flask-archive-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The path of an executable built next to the test bundle.
public func siblingExecutable(_ name: String) -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // On Apple platforms the tests run inside an .xctest bundle.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
        || directory.lastPathComponent == "Contents"
    {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent(name)
}

/// A child process started from an executable built next to the tests, its standard output read
/// through a pipe.
public final class ChildProcess {
    public let process = Process()
    private let output = Pipe()

    /// Starts `executable` with `arguments`, adding `environment` to the test's own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = siblingExecutable(executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        try process.run()
    }

    /// Blocks until the child has written `line` and a newline (its first output).
    public func waitFor(_ line: String) -> Bool {
        let expected = Data((line + "\n").utf8)
        var received = Data()
        while received.count < expected.count {
            let chunk = output.fileHandleForReading.readData(ofLength: expected.count - received.count)
            if chunk.isEmpty { return false }
            received.append(chunk)
        }
        return received == expected
    }

    /// Waits for the child to end and returns what it wrote.
    public func finish() -> String {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends `signal` and waits for the child to end.
    public func stop(with signal: Int32) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }
}
