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
/// (mode 0600), in a directory with mode 0700.
public struct FileArchiveStore: ArchiveStore {
    /// The directory holding the archives.
    public let directory: URL

    /// - Parameter directory: created (with mode 0700) if missing.
    public init(directory: URL) throws {
        self.directory = directory
        try createDirectory()
    }

    /// A store in the app's data directory, ``applicationDirectory(applicationName:environment:)``,
    /// created (mode 0700) at the first write, so that making the store never fails.
    ///
    /// - Parameter applicationName: the folder's name; the executable's name when nil. Set it
    ///   before the first substance restores: `Archiver.shared.store = FileArchiveStore(applicationName: "my-tool")`.
    public init(applicationName: String? = nil) {
        self.directory = FileArchiveStore.applicationDirectory(applicationName: applicationName)
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

    /// The file that holds `key`. Keys are escaped so that any string is a safe file name.
    public func fileURL(forKey key: String) -> URL {
        var name = ""
        for scalar in key.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-" || scalar == "_" {
                name.unicodeScalars.append(scalar)
            } else {
                name += String(format: "%%%02X", scalar.value)
            }
        }
        if name.hasPrefix(".") { name = "%2E" + name.dropFirst() }
        return directory.appendingPathComponent(name + ".json")
    }

    /// The contents of the key's file, nil when there is none.
    public func data(forKey key: String) throws -> Data? {
        let url = fileURL(forKey: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    /// Replaces the key's file atomically: the old contents or the new, never a torn file.
    public func set(_ data: Data, forKey key: String) throws {
        let url = fileURL(forKey: key)
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
        var fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd < 0 && errno == ENOENT {
            // The directory is made at the first write (see `init(applicationName:)`), or was removed.
            try createDirectory()
            fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        }
        guard fd >= 0 else { throw POSIXError(errno: errno) }
        var ok = false
        defer {
            if !ok { unlink(temporary.path) }
        }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw POSIXError(errno: errno)
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw POSIXError(errno: errno) }
        }
        guard rename(temporary.path, url.path) == 0 else { throw POSIXError(errno: errno) }
        ok = true
        // Make the rename itself durable.
        let directoryFD = open(directory.path, O_RDONLY)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Deletes the key's file, if any.
    public func removeData(forKey key: String) throws {
        let url = fileURL(forKey: key)
        if unlink(url.path) != 0 && errno != ENOENT { throw POSIXError(errno: errno) }
    }
}

extension POSIXError {
    init(errno code: Int32) {
        self.init(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
