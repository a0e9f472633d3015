import Foundation
import Synchronization

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
    /// Its standard input, when it is held open (see ``init(_:_:environment:holdingInput:)``).
    private let input: Pipe?
    /// What ``read(throughLineStartingWith:)`` read past the line it looked for.
    private var buffered = Data()

    /// Starts `executable` with `arguments`, adding `environment` to the test's own. With
    /// `holdingInput`, its standard input is a pipe kept open until ``closeInput()``: a child that
    /// reads it to its end waits until then.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], holdingInput: Bool = false
    ) throws {
        input = holdingInput ? Pipe() : nil
        process.executableURL = siblingExecutable(executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        if let input { process.standardInput = input }
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

    /// Blocks until the child has written a whole line starting with `prefix` (or ended), and
    /// returns what it wrote up to that line's end; ``finish()`` returns the rest. A child that
    /// has not written it after `seconds` is killed, and what it wrote is returned: the test fails
    /// on what is missing, rather than hang.
    public func read(throughLineStartingWith prefix: String, within seconds: Double = 300) -> String {
        let found = Mutex(false)
        let process = self.process
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            if !found.withLock({ $0 }), process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        defer { found.withLock { $0 = true } }
        var read = Data()
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffered[buffered.startIndex...newline]
                read.append(line)
                buffered = Data(buffered[(newline + 1)...])
                if line.starts(with: Data(prefix.utf8)) { break }
                continue
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffered.append(chunk)
        }
        return String(decoding: read, as: UTF8.self)
    }

    /// Closes the child's standard input (held open with `holdingInput`).
    public func closeInput() {
        try? input?.fileHandleForWriting.close()
    }

    /// Waits for the child to end and returns what it wrote (since ``read(throughLineStartingWith:)``,
    /// if that was called).
    public func finish() -> String {
        closeInput()
        let data = buffered + output.fileHandleForReading.readDataToEndOfFile()
        buffered = Data()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends `signal` and waits for the child to end.
    public func stop(with signal: Int32) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }
}
