import Foundation

/// A parsed JSON document, for restoring an archive value by value.
///
/// Numbers keep their text, so each is read as the type its property declares (an `Int` from
/// `1.0` but not from `1.5`, a `Double` from either), and `true` stays a boolean, never the
/// number 1 (as `JSONSerialization`'s `NSNumber` would have it).
enum JSONTree {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    /// The kind of value, for a reason that names no value.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why bytes are not JSON, by offset only.
struct JSONTreeError: Error, CustomStringConvertible {
    let offset: Int
    let problem: String

    var description: String { "not JSON: \(problem) at byte \(offset)" }
}

extension JSONTree {
    /// The deepest nesting read, as Foundation's readers do: deeper archives are unreadable.
    static let maximumNesting = ArchiveEncoder.maximumNesting

    /// Parses `data` in one pass.
    ///
    /// - Complexity: O(*n*) in the size of `data`.
    static func parse(_ data: Data) throws(JSONTreeError) -> JSONTree {
        let result = BorrowedBytes.read(data) { bytes -> Result<JSONTree, JSONTreeError> in
            var parser = JSONTreeParser(bytes: bytes)
            do throws(JSONTreeError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// A recursive-descent JSON parser over bytes; its nesting is bounded, so is its recursion.
private struct JSONTreeParser {
    let bytes: BorrowedBytes
    var offset = 0
    var depth = 0

    init(bytes: BorrowedBytes) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONTreeError) -> JSONTree {
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else { throw fail("text after the value") }
        return value
    }

    private func fail(_ problem: String) -> JSONTreeError {
        JSONTreeError(offset: offset, problem: problem)
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONTreeError) -> JSONTree {
        skipWhitespace()
        guard offset < bytes.count else { throw fail("unexpected end") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    private mutating func expect(_ word: StaticString) throws(JSONTreeError) {
        guard bytes.matches(word, at: offset) else { throw fail("unknown literal") }
        offset += word.utf8CodeUnitCount
    }

    private mutating func enter() throws(JSONTreeError) {
        depth += 1
        guard depth <= JSONTree.maximumNesting else { throw fail("nested deeper than \(JSONTree.maximumNesting)") }
        offset += 1
    }

    private mutating func parseObject() throws(JSONTreeError) -> JSONTree {
        try enter()
        var object: [String: JSONTree] = [:]
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            offset += 1
            object[key] = try parseValue()
            skipWhitespace()
            guard offset < bytes.count else { throw fail("unexpected end") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                depth -= 1
                return .object(object)
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONTreeError) -> JSONTree {
        try enter()
        var array: [JSONTree] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(array)
        }
        while true {
            array.append(try parseValue())
            skipWhitespace()
            guard offset < bytes.count else { throw fail("unexpected end") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                depth -= 1
                return .array(array)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONTreeError) -> String {
        let start = offset
        func digits(_ parser: inout JSONTreeParser) -> Int {
            let first = parser.offset
            while parser.offset < parser.bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.offset])
            {
                parser.offset += 1
            }
            return parser.offset - first
        }
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let integer = digits(&self)
        guard integer > 0 else { throw fail("expected a digit") }
        guard integer == 1 || bytes[start + (bytes[start] == UInt8(ascii: "-") ? 1 : 0)] != UInt8(ascii: "0") else {
            throw fail("leading zero")
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits(&self) > 0 else { throw fail("expected a digit") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard digits(&self) > 0 else { throw fail("expected a digit") }
        }
        return bytes.string(start..<offset)
    }

    private mutating func parseString() throws(JSONTreeError) -> String {
        offset += 1
        let start = offset
        // The common case: no escapes, decoded straight from the bytes.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = try validated(start..<offset)
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in a string") }
            offset += 1
        }
        var scalars = bytes.copy(start..<offset)
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let text = String(validating: scalars, as: UTF8.self) else { throw fail("invalid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                offset += 1
                guard offset < bytes.count else { throw fail("unexpected end") }
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try parseUnicodeEscape())
                default: throw fail("unknown escape")
                }
            case 0..<0x20:
                throw fail("control character in a string")
            default:
                scalars.append(byte)
                offset += 1
            }
        }
        throw fail("unterminated string")
    }

    private func validated(_ range: Range<Int>) throws(JSONTreeError) -> String {
        guard let text = bytes.validatedString(range) else {
            throw fail("invalid UTF-8")
        }
        return text
    }

    /// The UTF-8 of a `\uXXXX` escape (the `\u` read), with a following low surrogate if it is a high one.
    private mutating func parseUnicodeEscape() throws(JSONTreeError) -> [UInt8] {
        var value = try hexQuad()
        if (0xD800...0xDBFF).contains(value) {
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw fail("lone surrogate") }
            offset += 2
            let low = try hexQuad()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate") }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(value) {
            throw fail("lone surrogate")
        }
        guard let scalar = Unicode.Scalar(value) else { throw fail("invalid escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func hexQuad() throws(JSONTreeError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw fail("unexpected end") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }
}
