/// Where a mix was dispatched from: the file, line and function of the call, captured by the
/// default arguments of every dispatch spelling (`#fileID`, `#line`, `#function`), as Redux
/// DevTools' trace shows where an action came from.
///
/// `FluxLogger` ends each mix's line with it (`...; 0.04 ms; from Shop/CartView.swift:42 in
/// addItem(_:)`); observers of the mixer find it in ``FluxEvent/origin``, middleware in
/// `FluxMixReport.origin`, and the layers above in their own records.
///
/// The two literals are kept as `StaticString`s, text the program never frees, and read into a
/// `String` only when asked for. Every bus item carries one; packing the two as raw pointers saved
/// a little of each dispatch (docs/performance.md) and was not worth an unsafe file of its own.
/// The line sits between the two literals, so that the struct ends with the second one's last
/// byte and what follows it in a bus item (the event's kind) fills the padding: 49 bytes, not 56.
public struct FluxOrigin: Sendable, Equatable, CustomStringConvertible {
    @usableFromInline let fileText: StaticString
    @usableFromInline let lineNumber: UInt
    @usableFromInline let functionText: StaticString

    /// The origin of a call at `fileID`, `line`, in `function`.
    @inlinable
    public init(fileID: StaticString, line: UInt, function: StaticString) {
        fileText = fileID
        functionText = function
        lineNumber = line
    }

    /// The file, as `#fileID` spells it (`Module/File.swift`).
    public var fileID: String { fileText.description }
    /// The line of the call.
    public var line: UInt { lineNumber }
    /// The function the call is in, as `#function` spells it (`addItem(_:)`).
    public var function: String { functionText.description }

    /// `Module/File.swift:42 in addItem(_:)`.
    public var description: String { "\(fileID):\(line) in \(function)" }

    /// Whether two origins name the same file, line and function.
    public static func == (lhs: FluxOrigin, rhs: FluxOrigin) -> Bool {
        lhs.line == rhs.line && lhs.fileID == rhs.fileID && lhs.function == rhs.function
    }
}
