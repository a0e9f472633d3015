import Foundation

/// What changed in an archived value, as the places that changed and their new JSON: what an
/// archiver appends to a key's log (``ArchiveLogStore``) instead of writing the value whole, so
/// that a durable write costs the change, not the value.
///
/// A place is a path of object keys from the value's root (`["cards", "c42"]`; the empty path is the
/// whole value). Setting a place makes the objects on the way; removing one removes an object's
/// entry. Applied in the order they were appended, a key's patches turn the value it held into the
/// value it holds now.
///
/// ```swift
/// let patch = ArchivePatch([.set(path: ["cards", "c42"], json: Data(#"{"title":"tea"}"#.utf8))])
/// archiver.scheduleWrite(key: "board", after: 2, encode: { try ArchiveEncoder().encode(board) }, patch: { patch })
/// ```
public struct ArchivePatch: Sendable, Equatable {
    /// One change of a place.
    public enum Operation: Sendable, Equatable {
        /// The place takes the value encoded in `json`.
        case set(path: [String], json: Data)
        /// The place is removed.
        case remove(path: [String])
    }

    /// The changes, in order.
    public var operations: [Operation]

    /// A patch of `operations`.
    public init(_ operations: [Operation] = []) {
        self.operations = operations
    }

    /// The patch as one line of a log: `{"ops":[{"set":["cards","c42"],"v":...},{"remove":[...]}]}`
    /// and a newline: what ``ArchiveLogStore/appendLog(_:forKey:)`` is given. `json` values are
    /// written as they are (they must be JSON, which holds no raw newline).
    public var line: Data { Data(bytes) }

    private var bytes: [UInt8] {
        var bytes = Array("{\"ops\":[".utf8)
        for (index, operation) in operations.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            switch operation {
            case .set(let path, let json):
                bytes.append(contentsOf: "{\"set\":".utf8)
                Self.append(path, to: &bytes)
                bytes.append(contentsOf: ",\"v\":".utf8)
                bytes.append(contentsOf: json)
                bytes.append(UInt8(ascii: "}"))
            case .remove(let path):
                bytes.append(contentsOf: "{\"remove\":".utf8)
                Self.append(path, to: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
        }
        bytes.append(contentsOf: "]}\n".utf8)
        return bytes
    }

    private static func append(_ path: [String], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, component) in path.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONEscaping.appendQuoted(component, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

/// A key's log as read back: its patches in order. A last line without its newline was cut short
/// by a crash (its append never returned, so nothing it held was acknowledged): it is left out. A
/// whole line that is not a patch is damage (a disk's, or an editor's), reported, never skipped:
/// the lines after it may hold acknowledged changes.
struct ArchiveLog {
    let patches: [[(path: [String], value: JSONTree?)]]
    /// The first whole line that is not a patch (1-based), if any.
    let damagedLine: Int?

    init(_ data: Data) {
        var patches: [[(path: [String], value: JSONTree?)]] = []
        var damagedLine: Int?
        var start = data.startIndex
        while let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) {
            guard let patch = ArchiveLog.patch(data[start..<end]) else {
                damagedLine = patches.count + 1
                break
            }
            patches.append(patch)
            start = end + 1
        }
        self.patches = patches
        self.damagedLine = damagedLine
    }

    private static func patch(_ line: Data) -> [(path: [String], value: JSONTree?)]? {
        guard case .object(let fields)? = try? JSONTree.parse(Data(line)), case .array(let operations)? = fields["ops"]
        else { return nil }
        var parsed: [(path: [String], value: JSONTree?)] = []
        for operation in operations {
            guard case .object(let operation) = operation else { return nil }
            if case .array(let path)? = operation["set"], let value = operation["v"], let components = strings(path) {
                parsed.append((components, value))
            } else if case .array(let path)? = operation["remove"], let components = strings(path) {
                parsed.append((components, nil))
            } else {
                return nil
            }
        }
        return parsed
    }

    private static func strings(_ values: [JSONTree]) -> [String]? {
        var strings: [String] = []
        for value in values {
            guard case .string(let text) = value else { return nil }
            strings.append(text)
        }
        return strings
    }

    /// `snapshot` (nil: none) with the log's patches applied, as JSON bytes; nil when the value
    /// was removed (see ``removalLine``) and not set again.
    ///
    /// - Throws: ``ArchiveLogDamagedError`` for a damaged log (nothing is applied), what parsing
    ///   the snapshot throws.
    func applied(to snapshot: Data?, key: String) throws -> Data? {
        if let damagedLine { throw ArchiveLogDamagedError(key: key, line: damagedLine) }
        var tree: JSONTree?
        if let snapshot { tree = try JSONTree.parse(snapshot) }
        for patch in patches {
            for (path, value) in patch {
                if path.isEmpty {
                    tree = value
                } else {
                    var changed = tree ?? .null
                    tree = nil  // changed in place, not copied
                    changed.apply(path[...], value)
                    tree = changed
                }
            }
        }
        guard let tree else { return nil }
        var bytes: [UInt8] = []
        tree.write(to: &bytes)
        return Data(bytes)
    }

    /// A log line that removes the value: what a removal appends before it deletes the files, so
    /// that a crash between the deletions reads nothing rather than the snapshot without its log.
    static let removalLine = Data(#"{"ops":[{"remove":[]}]}"#.utf8 + [UInt8(ascii: "\n")])

    /// A log line that sets the whole value to `json` (which must be JSON).
    static func wholeValueLine(_ json: Data) -> Data {
        var bytes = Array(#"{"ops":[{"set":[],"v":"#.utf8)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: "}]}\n".utf8)
        return Data(bytes)
    }
}

extension JSONTree {
    /// Sets `value` at `path` (making the objects on the way), or removes the place when nil.
    mutating func apply(_ path: ArraySlice<String>, _ value: JSONTree?) {
        guard let first = path.first else {
            self = value ?? .null
            return
        }
        var fields: [String: JSONTree] = [:]
        if case .object(let existing) = self {
            fields = existing
            self = .null  // changed in place, not copied
        } else if value == nil {
            return  // nothing to remove below a value that is not an object
        }
        if path.count == 1 {
            fields[first] = value
        } else {
            var child = fields.removeValue(forKey: first) ?? .object([:])
            child.apply(path.dropFirst(), value)
            fields[first] = child
        }
        self = .object(fields)
    }

    /// The JSON bytes of the tree (numbers as their text, object keys sorted).
    func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): JSONEscaping.appendQuoted(text, to: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONEscaping.appendQuoted(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                fields[key]!.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

/// A key's log holds a whole line that is not a patch: damage from outside (a disk, an editor),
/// since the archiver only appends whole lines. Nothing of the key is read, and nothing written
/// over it (the archiver refuses to write a key it could not read), so the lines after the damage,
/// which may hold acknowledged changes, stay for a person to mend: remove the damaged line, or
/// the key, to archive again.
public struct ArchiveLogDamagedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key whose log is damaged.
    public let key: String
    /// The first damaged line (1-based).
    public let line: Int

    /// The error of `key`'s log, damaged at `line`.
    public init(key: String, line: Int) {
        self.key = key
        self.line = line
    }

    public var description: String {
        "the log of \(ArchiveProblem.shortened(key)) is damaged at line \(line): left as it is, for a person to mend"
    }
}
