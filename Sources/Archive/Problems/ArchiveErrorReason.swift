import Foundation

/// Describes an error for a diagnostic without the values it may hold.
///
/// `EncodingError.invalidValue` holds the value that failed (for a state, often the whole state),
/// and the debug descriptions of coding errors quote archived text and numbers; printing either
/// (`"\(error)"`) leaks user data into logs. So an error is described by its kind, the type it
/// concerns and its coding path only; a store error by its code.
enum ArchiveErrorReason {
    static func describe(_ error: any Error) -> String {
        switch error {
        case EncodingError.invalidValue(let value, let context):
            if context.underlyingError is ArchiveEncoder.NestingLimit {
                return "nested deeper than \(ArchiveEncoder.maximumNesting) levels at \(path(context.codingPath))"
            }
            return "\(type(of: value)) cannot be encoded at \(path(context.codingPath))"
        case DecodingError.dataCorrupted(let context):
            return "unreadable value at \(path(context.codingPath))"
        case DecodingError.keyNotFound(let key, let context):
            return "key \(key.stringValue) not found at \(path(context.codingPath))"
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath))"
        case DecodingError.valueNotFound(let type, let context):
            return "missing \(type) at \(path(context.codingPath))"
        case let error as any ArchiveOwnError:
            return error.description
        case let error as POSIXError:
            return "\(String(cString: strerror(error.code.rawValue))) (errno \(error.code.rawValue))"
        default:
            let bridged = error as NSError
            return "\(type(of: error)) (\(bridged.domain) \(bridged.code))"
        }
    }

    /// The kind of a decoding error, without its coding path (for errors of decoders whose keys
    /// cannot be told apart from a dictionary's).
    static func kind(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted: "unreadable value"
        case DecodingError.keyNotFound: "a key not found"
        case DecodingError.typeMismatch(let type, _): "expected \(type)"
        case DecodingError.valueNotFound(let type, _): "missing \(type)"
        default: describe(error)
        }
    }

    /// A coding path as dotted keys, array elements by index.
    static func dotted(_ codingPath: [any CodingKey]) -> String {
        spelled(codingPath).joined()
    }

    /// A coding path as dotted keys, array elements by index; a long one abbreviated.
    static func path(_ codingPath: [any CodingKey]) -> String {
        if codingPath.isEmpty { return "the top" }
        let keys = spelled(codingPath)
        guard keys.count > 8 else { return keys.joined() }
        return keys.prefix(3).joined() + ".…" + keys.suffix(3).joined() + " (\(keys.count) levels)"
    }

    /// Each key of `codingPath` as it is written in a path, with its separator: `.name`, `.3` for
    /// an array element, and `[…]` for a dictionary's key, which is user data (a token, an e-mail
    /// address) and never written. The first key has no separator.
    static func spelled(_ codingPath: [any CodingKey]) -> [String] {
        codingPath.enumerated().map { position, key in
            if isDictionaryKey(key) { return "[…]" }
            let text = key.intValue.map(String.init) ?? key.stringValue
            return position == 0 ? text : "." + text
        }
    }

    /// Whether `key` is a dictionary's: the archive's own decoder marks them, and the standard
    /// library's `Dictionary` encodes and decodes its keys with a type of its own.
    static func isDictionaryKey(_ key: any CodingKey) -> Bool {
        if let key = key as? TreeKey { return key.isDictionaryKey }
        return String(describing: type(of: key)) == "_DictionaryCodingKey"
    }
}

/// An error of the archive's own, whose description names keys, files, lines and kinds of value,
/// never a value: a diagnostic quotes it as it is. (An error the archive does not know is described
/// by its type and code only.)
protocol ArchiveOwnError: Error, CustomStringConvertible {}

extension ArchiveForeignValueError: ArchiveOwnError {}
extension ArchiveSpecialFileError: ArchiveOwnError {}
extension ArchiveOwnershipLostError: ArchiveOwnError {}
extension ArchiveKeyOwnedError: ArchiveOwnError {}
extension ArchiveLogDamagedError: ArchiveOwnError {}
extension JSONTreeError: ArchiveOwnError {}
