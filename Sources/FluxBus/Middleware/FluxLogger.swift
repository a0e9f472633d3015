/// A middleware that writes one line per mix: what ran, with which payload keys, what it changed
/// and how long it took.
///
/// Install it when you want it (it is off by default). Payload values are redacted unless you ask
/// for them: only keys and value types are written, so a log cannot leak user data by accident.
/// Asked for, the values of the keys a mixer's domain names secret (``FluxPayloadSecrets``) are
/// still redacted.
///
/// ```swift
/// bus.use(FluxLogger())
/// // mix #1 SessionMixers.login [user: String] → 1 observer; 0.04 ms;
/// //   from App/LoginView.swift:42 in signIn()
/// ```
public final class FluxLogger: FluxMiddleware {
    /// Whether payload values are written (off by default: keys and types only).
    public let showsPayloadValues: Bool
    private let output: @Sendable (String) -> Void

    /// - Parameters:
    ///   - showsPayloadValues: write payload values, not just keys and types.
    ///   - output: where lines go; `print` by default.
    public init(showsPayloadValues: Bool = false, output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.showsPayloadValues = showsPayloadValues
        self.output = output
    }

    /// Writes the line of `report`.
    public func didMix(_ report: FluxMixReport) {
        output(FluxLogger.line(for: report, showingPayloadValues: showsPayloadValues))
    }

    /// The line written for a report.
    public static func line(for report: FluxMixReport, showingPayloadValues: Bool = false) -> String {
        line(for: report.summary, showingPayloadValues: showingPayloadValues)
    }

    /// The line written for a report's summary (its `description`, with payload values redacted).
    public static func line(for report: FluxMixReport.Summary, showingPayloadValues: Bool = false) -> String {
        var line = "mix #\(report.serial) "
        line += report.kind == .task ? "task \(report.mixer)" : "\(report.mixer)"
        if let dispatched = report.dispatchedMixer { line += " (replacing \(dispatched))" }
        if let payload = report.payload, !payload.isEmpty {
            let secrets = FluxPayloadRedaction(report.mixer.domain)
            let entries = payload.keys.sorted().map { key in
                let value = payload[key]!
                guard showingPayloadValues else { return "\(key): \(type(of: value))" }
                return "\(key): \(secrets.describe(value, at: [key]))"
            }
            line += " [" + entries.joined(separator: ", ") + "]"
        }
        if report.kind == .exclusiveMixer { line += " exclusive" }
        if let stop = report.stop {
            return line + " stopped by \(stop.middleware): \(stop.reason)"
        }
        if report.kind != .task {
            line += " → \(report.observersCalled) observer\(report.observersCalled == 1 ? "" : "s")"
        }
        for described in report.recordDescriptions where !described.isEmpty { line += "; " + described }
        if !report.locksHeld.isEmpty {
            line += "; locks " + report.locksHeld.map { "#\($0)" }.joined(separator: ", ")
        }
        line += "; \((report.duration.microseconds / 10).rounded() / 100) ms"
        if let origin = report.origin { line += "; from \(origin)" }
        return line
    }
}

/// A mixer domain (an enumeration of mixers) that names payload keys whose values no log or
/// record shows: ``FluxLogger`` writes them as `<redacted>` even when it shows values.
///
/// A key is dotted to name a place below a payload value: `password` is the payload's own
/// `password`; `account.password` is the `password` of the dictionary under `account`, and of
/// anything below it (dictionaries and arrays crossed on the way). What lies below a secret place
/// is secret too.
public protocol FluxPayloadSecrets {
    /// The payload keys whose values are secret.
    static var secretPayloadKeys: Set<String> { get }
}

/// A domain's secret payload keys as ``FluxLogger`` applies them, at any depth of a payload's
/// dictionaries and arrays.
struct FluxPayloadRedaction {
    /// Each secret key's components.
    private let keys: [[String]]

    init(_ domain: (any Any.Type)?) {
        let secrets = (domain as? any FluxPayloadSecrets.Type)?.secretPayloadKeys ?? []
        keys = secrets.sorted().map { $0.split(separator: ".").map(String.init) }.filter { !$0.isEmpty }
    }

    /// Whether the place at `path` (payload key first) is secret: a key's first component is the
    /// path's first, and its others come in order below it.
    func isSecret(_ path: [String]) -> Bool {
        keys.contains { key in
            guard key[0] == path[0] else { return false }
            var next = 1
            for component in path.dropFirst() where next < key.count && key[next] == component { next += 1 }
            return next == key.count
        }
    }

    /// Whether a place below `path` may be secret.
    private func mayHaveSecretsBelow(_ path: [String]) -> Bool {
        keys.contains { $0.count > 1 && $0[0] == path[0] }
    }

    /// `value`, found at `path`, as text: redacted where it is secret; a dictionary or an array with
    /// secret places below spelled out with those redacted; anything else as it describes itself.
    func describe(_ value: Any, at path: [String]) -> String {
        if isSecret(path) { return "<redacted>" }
        guard mayHaveSecretsBelow(path) else { return "\(value)" }
        if let dictionary = value as? [String: Any] {
            let entries = dictionary.keys.sorted().map { "\($0): \(describe(dictionary[$0]!, at: path + [$0]))" }
            return "[" + entries.joined(separator: ", ") + "]"
        }
        if let array = value as? [Any] {
            return "[" + array.map { describe($0, at: path) }.joined(separator: ", ") + "]"
        }
        return "\(value)"
    }
}
