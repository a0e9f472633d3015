import Archive
import FlaskTestSupport
import Foundation

/// A fresh directory under the temporary directory.
func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("flask-archive-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The path of an executable built next to the test bundle.
func siblingExecutable(_ name: String) -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // On Apple platforms the tests run inside an .xctest bundle.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
        || directory.lastPathComponent == "Contents"
    {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent(name)
}
