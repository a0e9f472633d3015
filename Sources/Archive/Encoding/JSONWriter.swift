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

    private mutating func write(string: String) {
        JSONEscaping.appendQuoted(string, to: &bytes)
    }
}
