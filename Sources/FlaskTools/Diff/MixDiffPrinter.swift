import FluxBus
import Substances

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
/// bytes; a key the state marks secret (`State.secretKeys`) prints as `<redacted>`, and
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
        report.forEachOutcome { entry in
            guard case .committed(let changes) = entry.result else { return }
            for change in changes.journalKeyChanges(limit: MixJournal.valueLimit) {
                // A side where the key did not exist (an entry added or removed, an element
                // appended or gone) has no line, as in a diff of text.
                lines.append("  \(entry.receiverName).\(change.key)")
                if change.oldExists { lines.append("  - \(change.old.json)") }
                if change.newExists { lines.append("  + \(change.new.json)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}
