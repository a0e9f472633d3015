import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// The archive's bytes read and written in place, through pointers, in one place: the tolerant
// decoder's JSON parser reads every byte of an archive it restores, and a file store writes every
// byte of one it stores. Both go through `Data.withUnsafeBytes`, whose pointer is valid only inside
// its closure; the rest of the module uses the safe interfaces below.

/// The bytes of a `Data`, read in place, for the duration of one call of ``read(_:_:)``: the JSON
/// parser's input (``JSONTree/parse(_:)``).
///
/// Why not the `Data`'s own subscript, or a copy in an `[UInt8]`: each read of a byte would check
/// the index (and, for `Data`, its representation), on every byte of an archive; the ArchiveProbe
/// restore measurement (`ArchiveProbe measure-restore`, 20 and 50 MB restored value by value) and a
/// restore of 1 MB with one misfit are the figures that keep it.
///
/// The invariants, checked in debug builds: a reader is used only inside the ``read(_:_:)`` call
/// that made it (the pointer is valid only there), and every offset and range it is given lies
/// within the bytes (`UnsafeBufferPointer` checks them in debug builds, and not in release ones).
struct BorrowedBytes {
    private let bytes: UnsafeBufferPointer<UInt8>
    #if DEBUG
        /// Open while the call that made the reader runs.
        private let scope: Scope

        private final class Scope {
            var open = true
        }
    #endif

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        #if DEBUG
            scope = Scope()
        #endif
    }

    /// Calls `body` with the bytes of `data`, which it must not keep.
    static func read<Result>(_ data: Data, _ body: (BorrowedBytes) -> Result) -> Result {
        data.withUnsafeBytes { raw in
            let reader = BorrowedBytes(raw.bindMemory(to: UInt8.self))
            #if DEBUG
                defer { reader.scope.open = false }
            #endif
            return body(reader)
        }
    }

    /// How many bytes there are.
    var count: Int {
        checkScope()
        return bytes.count
    }

    /// The byte at `offset`.
    subscript(offset: Int) -> UInt8 {
        @inline(__always) get {
            checkScope()
            return bytes[offset]
        }
    }

    /// Whether the bytes at `offset` are `word`'s (false when they run out first).
    func matches(_ word: StaticString, at offset: Int) -> Bool {
        checkScope()
        let count = word.utf8CodeUnitCount
        guard offset >= 0, offset + count <= bytes.count else { return false }
        return memcmp(bytes.baseAddress! + offset, word.utf8Start, count) == 0
    }

    /// The bytes in `range`, decoded as UTF-8, invalid sequences replaced.
    func string(_ range: Range<Int>) -> String {
        checkScope()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// The bytes in `range` as a string, nil when they are not valid UTF-8.
    func validatedString(_ range: Range<Int>) -> String? {
        checkScope()
        return String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A copy of the bytes in `range`.
    func copy(_ range: Range<Int>) -> [UInt8] {
        checkScope()
        return Array(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    @inline(__always)
    private func checkScope() {
        #if DEBUG
            precondition(scope.open, "bytes read after the call that lent them returned")
        #endif
    }
}

extension FileArchiveStore {
    /// Writes all of `data` to `fd`, again after each partial write or interruption (`EINTR`).
    ///
    /// - Throws: the `POSIXError` of a write that fails.
    /// Reads exactly `count` bytes of `fd` from `offset`.
    ///
    /// - Throws: the `POSIXError` of a read that fails or comes short (`EIO`).
    static func readExactly(_ count: Int, of fd: Int32, at offset: Int) throws -> Data {
        var bytes = Data(count: count)
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard read == count else { throw POSIXError(errno: read < 0 ? errno : EIO) }
        return bytes
    }

    static func writeAll(_ data: Data, to fd: Int32) throws {
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
    }
}
