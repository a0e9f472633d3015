import Foundation

/// The file name a ``FileArchiveStore`` gives a key: one file per key, and never one file for two.
///
/// The key, in Unicode's composed form (NFC, so that two keys Swift calls equal share a file), is
/// written as UTF-8 with every byte other than a lowercase ASCII letter, a digit, `-`, `_` or `.`
/// spelled as `%XX` (two uppercase hexadecimal digits), and a leading `.` as `%2E`; then `.json`.
/// Every escape is three characters and `%` itself is escaped, so the name reads back to exactly
/// one key; and since uppercase letters are escaped too, that holds on file systems that ignore
/// case (macOS's by default), where `Settings` and `settings` would otherwise share a file.
///
/// A name longer than ``longestSpelledOut`` bytes (file systems refuse names over 255) is instead
/// the first part of that spelling, `~` (which the spelling never contains), and the SHA-256 of
/// the key: such a file begins with a line that records the whole key, checked on every read, and
/// in the impossible case of two keys with one digest the second takes `~2`, and so on.
struct ArchiveFileName {
    /// The longest spelled-out name, `.json` included: longer ones are named by digest.
    static let longestSpelledOut = 200
    /// How much of the spelling a name by digest keeps, so that a person can tell whose file it is.
    static let readablePrefix = 96
    /// The first bytes of a file named by digest, before the spelled-out key and a newline.
    static let keyLinePrefix = Array("flask-archive-key ".utf8)

    /// The key, as given.
    let key: String
    /// The key spelled with escapes (without `.json`).
    let spelled: String

    init(_ key: String) {
        self.key = key
        self.spelled = ArchiveFileName.spell(key)
    }

    /// Whether the name is a digest, and the file then records its key.
    var isDigest: Bool { spelled.utf8.count + 5 > ArchiveFileName.longestSpelledOut }

    /// The name of the `attempt`-th candidate file (1 for the first; only names by digest have
    /// others).
    func name(attempt: Int = 1) -> String {
        guard isDigest else { return spelled + ".json" }
        var prefix = Substring(spelled.prefix(ArchiveFileName.readablePrefix))
        // Not in the middle of an escape.
        if let percent = prefix.suffix(2).lastIndex(of: "%") { prefix = prefix[..<percent] }
        let digest = SHA256.hex(of: Array(key.precomposedStringWithCanonicalMapping.utf8))
        return "\(prefix)~\(digest)\(attempt > 1 ? "~\(attempt)" : "").json"
    }

    /// The line that begins a file named by digest.
    var keyLine: Data {
        Data(ArchiveFileName.keyLinePrefix + Array(spelled.utf8) + [UInt8(ascii: "\n")])
    }

    /// The archive in `contents` of a file named by digest, or nil when the file records another key.
    func archive(in contents: Data) -> Data? {
        let line = keyLine
        guard contents.count >= line.count, contents.prefix(line.count) == line else { return nil }
        return Data(contents.dropFirst(line.count))
    }

    /// The key with every byte but `[a-z0-9._-]` escaped, and a leading `.` too.
    static func spell(_ key: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in key.precomposedStringWithCanonicalMapping.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: ".") where !bytes.isEmpty:
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        // The empty key: `%` followed by no escape is no other key's spelling.
        return bytes.isEmpty ? "%" : String(decoding: bytes, as: UTF8.self)
    }

    /// The key whose spelled-out name `name` (with `.json`) is, or nil when no key is named so (a
    /// name by digest, or one that only an earlier version could have made).
    static func key(named name: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        let spelled = String(name.dropLast(5))
        if spelled == "%" { return "" }
        var bytes: [UInt8] = []
        var rest = Array(spelled.utf8)[...]
        func hexDigit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard let high = rest.popFirst().flatMap(hexDigit), let low = rest.popFirst().flatMap(hexDigit) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard let key = String(validating: bytes, as: UTF8.self), spell(key) == spelled else { return nil }
        return key
    }

    /// `name` as a file system that ignores case sees it, in the form a current name would take:
    /// letters in lowercase, the two digits of each `%` escape in uppercase.
    static func caseFolded(_ name: String) -> String {
        var bytes: [UInt8] = []
        var escapeDigits = 0
        for byte in name.utf8 {
            if escapeDigits > 0 {
                bytes.append(byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte)
                escapeDigits -= 1
            } else if byte == UInt8(ascii: "%") {
                bytes.append(byte)
                escapeDigits = 2
            } else {
                bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The name the store gave `key` before names were made injective (up to version 0.x of this
    /// package): read when a key's file is missing, so that no archive is lost in the upgrade.
    /// Two keys could share it (`€` and ` AC` both gave `%20AC`).
    static func legacyName(_ key: String) -> String {
        var name = ""
        for scalar in key.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-" || scalar == "_" {
                name.unicodeScalars.append(scalar)
            } else {
                name += String(format: "%%%02X", scalar.value)
            }
        }
        if name.hasPrefix(".") { name = "%2E" + name.dropFirst() }
        return name + ".json"
    }
}
