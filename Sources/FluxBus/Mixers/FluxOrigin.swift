/// Where a mix was dispatched from: the file, line and function of the call, captured by the
/// default arguments of every dispatch spelling (`#fileID`, `#line`, `#function`), as Redux
/// DevTools' trace shows where an action came from.
///
/// `FluxLogger` ends each mix's line with it (`...; 0.04 ms; from Shop/CartView.swift:42 in
/// addItem(_:)`); observers of the mixer find it in ``FluxEvent/origin``, middleware in
/// `FluxMixReport.origin`, reactions in `reaction.commit.origin`.
///
/// Three words: the two static texts where the program keeps them (the literals `#fileID` and
/// `#function` are, for as long as it runs), their lengths and the line packed in the third. Every
/// bus item carries one, so its size is paid at each dispatch (scenario S1: two `StaticString`s
/// and a line took 56 bytes of the item and cost 33 instructions more).
///
/// `@unchecked Sendable`: the pointers lead to static text the program never writes and never
/// frees (a `StaticString` is made only from a literal), so reading it from any thread is safe.
public struct FluxOrigin: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// The UTF-8 of `#fileID`, static.
    private let fileStart: UnsafeRawPointer
    /// The UTF-8 of `#function`, static.
    private let functionStart: UnsafeRawPointer
    /// The line (low 32 bits), the file's length (16 bits above) and the function's (16 bits on top).
    private let packed: UInt64

    /// The origin of a call at `fileID`, `line`, in `function`.
    @inlinable
    public init(fileID: StaticString, line: UInt, function: StaticString) {
        self.init(
            file: FluxOrigin.start(of: fileID), fileCount: fileID.utf8CodeUnitCount,
            function: FluxOrigin.start(of: function), functionCount: function.utf8CodeUnitCount, line: line)
    }

    @usableFromInline
    init(file: UnsafeRawPointer, fileCount: Int, function: UnsafeRawPointer, functionCount: Int, line: UInt) {
        fileStart = file
        functionStart = function
        packed =
            UInt64(truncatingIfNeeded: min(line, UInt(UInt32.max)))
            | UInt64(min(fileCount, 0xFFFF)) << 32 | UInt64(min(functionCount, 0xFFFF)) << 48
    }

    /// Where a static text's UTF-8 lies. A literal of one Unicode scalar is kept without a pointer
    /// (`#fileID` and `#function` never are: `Module/File.swift`, `f()`): it is told apart as empty.
    @usableFromInline
    static func start(of text: StaticString) -> UnsafeRawPointer {
        text.hasPointerRepresentation ? UnsafeRawPointer(text.utf8Start) : UnsafeRawPointer(emptyText.utf8Start)
    }

    @usableFromInline static let emptyText: StaticString = ""

    /// The file, as `#fileID` spells it (`Module/File.swift`).
    public var fileID: String { FluxOrigin.text(fileStart, count: Int(packed >> 32 & 0xFFFF)) }
    /// The line of the call.
    public var line: UInt { UInt(packed & 0xFFFF_FFFF) }
    /// The function the call is in, as `#function` spells it (`addItem(_:)`).
    public var function: String { FluxOrigin.text(functionStart, count: Int(packed >> 48)) }

    private static func text(_ start: UnsafeRawPointer, count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// `Module/File.swift:42 in addItem(_:)`.
    public var description: String { "\(fileID):\(line) in \(function)" }

    public static func == (lhs: FluxOrigin, rhs: FluxOrigin) -> Bool {
        lhs.line == rhs.line && lhs.fileID == rhs.fileID && lhs.function == rhs.function
    }
}
