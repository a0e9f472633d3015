import FluxBus
import Foundation

/// A middleware that prints each mix as a diff of what it changed: the mix's line (as `FluxLogger`
/// writes it), then, per substance, each changed key with its value before (`-`) and after (`+`).
/// For terminals and test logs.
///
/// ```swift
/// bus.use(MixDiffPrinter())
/// // mix #2 SessionMixers.login [user: String] → 1 observer; session: user (1 reactor); 0.05 ms
/// //   session.user
/// //   - nil
/// //   + "ada"
/// ```
///
/// Values are those a ``MixJournal`` records: compact JSON, each cut to about ``MixJournal/valueLimit``
/// bytes; a key the state marks secret (``State/secretKeys``) prints as `<redacted>`, and
/// `_`-prefixed properties never print. Payload values print only with `showsPayloadValues`.
public final class MixDiffPrinter: FluxMiddleware {
    /// Whether the mix's line shows payload values, not just keys and types.
    public let showsPayloadValues: Bool
    private let output: @Sendable (String) -> Void

    /// - Parameters:
    ///   - showsPayloadValues: show payload values in the mix's line (changed values always show,
    ///     secrets aside).
    ///   - output: where each mix's text goes; `print` by default.
    public init(showsPayloadValues: Bool = false, output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.showsPayloadValues = showsPayloadValues
        self.output = output
    }

    /// Prints the diff of `report`.
    public func didMix(_ report: FluxMixReport) {
        output(MixDiffPrinter.diff(of: report, showingPayloadValues: showsPayloadValues))
    }

    /// The text printed for a report: its line, then the changed keys' values before and after.
    public static func diff(of report: FluxMixReport, showingPayloadValues: Bool = false) -> String {
        var lines = [FluxLogger.line(for: report, showingPayloadValues: showingPayloadValues)]
        report.recordsReadInPlace.withUnsafeBufferPointer { records in
            for record in records {
                guard let entry = MixOutcome.Entry.unboxed(record), case .committed(let changes) = entry.result else {
                    continue
                }
                for change in changes.journalKeyChanges(limit: MixJournal.valueLimit) {
                    lines.append("  \(entry.receiverName).\(change.key)")
                    lines.append("  - \(change.old.json)")
                    lines.append("  + \(change.new.json)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension JournalValue {
    /// The value as compact JSON text (`"ada"`, `[1,2]`, `{"a":1}`), `<redacted>` for a secret and
    /// `<Type>` for a value JSON cannot carry.
    public var json: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): JournalValue.quoted(value)
        case .array(let values): "[" + values.map(\.json).joined(separator: ",") + "]"
        case .object(let values):
            "{"
                + values.keys.sorted().map { "\(JournalValue.quoted($0)):\(values[$0].unsafelyUnwrapped.json)" }
                .joined(separator: ",") + "}"
        case .unrepresentable(let type): "<\(type)>"
        case .redacted: "<redacted>"
        }
    }

    /// `text` in double quotes, with quotes, backslashes and control characters escaped as JSON
    /// escapes them.
    private static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
