import Foundation

/// Writes encoded values as JSON bytes.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write(_ value: EncodedValue) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): write(string: text)
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for index in object.keys.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(string: object.keys[index])
                bytes.append(UInt8(ascii: ":"))
                write(object.values[index])
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for index in array.values.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(array.values[index])
            }
            bytes.append(UInt8(ascii: "]"))
        case .deferred(let encoder):
            write(encoder.value ?? .object(EncodedObject()))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private mutating func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(JSONWriter.hex[Int(byte >> 4)])
                bytes.append(JSONWriter.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
