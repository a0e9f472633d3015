import FlaskTools
import FluxBus
import Substances

/// Records every change some substances commit, for an app's tests to assert exhaustively: every
/// change, in order, with its old and new values.
///
/// ```swift
/// let probe = ChangeProbe(counter)
/// counter.bus.dispatch(CounterMixers.increment)
/// try await probe.expect([
///     .change("count", from: 0, to: 1),
/// ])
/// ```
///
/// ``mismatch(with:)`` waits for the bus to run what was enqueued before it, compares what was
/// recorded with what you expect, forgets it, and returns a ``Mismatch`` whose description is a
/// readable diff when they differ: an unexpected change fails the test as surely as a missing one.
/// Bind it, then check it, and the test framework reports the failure at that line, with the
/// diff (Swift Testing does not show a value computed under `await` inside `#expect`):
///
/// ```swift
/// let mismatch = await probe.mismatch(with: [.change("count", from: 0, to: 1)])
/// #expect(mismatch == nil)     // Swift Testing
/// XCTAssertNil(mismatch)       // XCTest
/// ```
///
/// ``expect(_:fileID:line:)`` does the same and throws the mismatch (mark the test `throws`); the
/// frameworks then report it at the test's declaration, and the mismatch's description starts
/// with the file and line of the call.
///
/// Changes are recorded per leaf key: a change of `info.counter` is recorded as `info.counter`,
/// not also as its parent `info`.
public final class ChangeProbe: Sendable {
    /// One recorded change.
    public struct Change: Sendable, CustomStringConvertible {
        /// The substance's name.
        public let substance: String
        /// The dotted key.
        public let key: String
        /// The value before, nil when it was nil.
        public var oldValue: Any? { change.oldValue() }
        /// The value after, nil when it is nil.
        public var newValue: Any? { change.newValue() }
        /// The change, read from changes marked escaped on the bus: read anywhere after.
        let changes: SubstanceChanges
        let slot: Int
        var change: SubstanceChange { changes.all[slot] }
        /// The values as a report shows them: secret keys of the state redacted, at any depth.
        let shown: (old: String, new: String)

        public var description: String {
            "\(substance).\(key): \(shown.old) → \(shown.new)"
        }
    }

    /// An expected change: a key, its old and new values, and optionally the substance's name.
    public struct Expectation: Sendable, CustomStringConvertible {
        let substance: String?
        let key: String
        let old: String
        let new: String
        let matches: @Sendable (Change) -> Bool

        /// Expects `key` to change from `old` to `new` (nil for a nil value).
        public static func change<Value: Equatable & Sendable>(
            _ key: String, from old: Value?, to new: Value?, in substance: String? = nil
        ) -> Expectation {
            Expectation(
                substance: substance, key: key, old: ChangeProbe.render(old), new: ChangeProbe.render(new)
            ) { change in
                change.key == key && (substance == nil || change.substance == substance)
                    && ChangeProbe.equal(change.oldValue, old) && ChangeProbe.equal(change.newValue, new)
            }
        }

        public var description: String {
            "\(substance ?? "*").\(key): \(old) → \(new)"
        }
    }

    /// The recorded changes, when they are not the expected ones.
    public struct Mismatch: Error, CustomStringConvertible {
        /// The expected and recorded changes as a diff: `−` expected but not recorded, `+`
        /// recorded but not expected.
        public let diff: String
        /// Where the check was made (`File.swift:12`), when it was thrown by
        /// ``ChangeProbe/expect(_:fileID:line:)``.
        public let location: String?

        public var description: String {
            let heading = "Changes differ from the expected ones (− expected, + recorded):\n\(diff)"
            return location.map { "\($0): \(heading)" } ?? heading
        }
    }

    private let recorder: Recorder
    private let substances: [any AnySubstance]

    /// Starts recording the changes of `substances`.
    public init(_ substances: [any AnySubstance]) {
        self.substances = substances
        self.recorder = Recorder()
        for substance in substances { substance.bind(recorder) }
    }

    /// Starts recording the changes of `substances`.
    public convenience init(_ substances: any AnySubstance...) {
        self.init(substances)
    }

    deinit {
        for substance in substances { substance.unbind(recorder) }
    }

    /// Waits for the bus items enqueued before this call, then returns the changes recorded and
    /// not yet expected, and forgets them.
    public func takeChanges() async -> [Change] {
        for bus in uniqueBuses { await bus.flush() }
        return recorder.recorded.withLock { changes in
            defer { changes.removeAll() }
            return changes
        }
    }

    /// Waits for the bus items enqueued before this call, then compares the changes recorded
    /// since the last check with `expected`, in order: nil when they are exactly those, else the
    /// mismatch. Assert on the result where you call it, and the test framework reports a failure
    /// at that line.
    public func mismatch(with expected: [Expectation]) async -> Mismatch? {
        let recorded = await takeChanges()
        return ChangeProbe.diff(expected: expected, recorded: recorded).map { Mismatch(diff: $0, location: nil) }
    }

    /// Waits for the bus items enqueued before this call, then checks that the changes recorded
    /// since the last check are exactly `expected`, in order.
    ///
    /// - Parameters:
    ///   - expected: the changes, in order.
    ///   - fileID: the caller's file, named by the mismatch; leave the default.
    ///   - line: the caller's line; leave the default.
    /// - Throws: ``Mismatch``, with a diff of the two lists and the caller's file and line.
    public func expect(_ expected: [Expectation], fileID: String = #fileID, line: Int = #line) async throws {
        if let mismatch = await mismatch(with: expected) {
            throw Mismatch(diff: mismatch.diff, location: "\(fileID):\(line)")
        }
    }

    /// Checks that nothing changed since the last check.
    public func expectNoChanges(fileID: String = #fileID, line: Int = #line) async throws {
        try await expect([], fileID: fileID, line: line)
    }

    private var uniqueBuses: [Flux] {
        var buses: [Flux] = []
        for substance in substances where !buses.contains(where: { $0 === substance.bus }) {
            buses.append(substance.bus)
        }
        return buses
    }

    // MARK: Diff

    /// The diff of the two lists, nil when every expectation matches its recorded change.
    static func diff(expected: [Expectation], recorded: [Change]) -> String? {
        let n = expected.count
        let m = recorded.count
        // Longest common subsequence, so that one extra or missing change shows as one line.
        var lengths = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i][j] =
                    expected[i].matches(recorded[j])
                    ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        if lengths[0][0] == n && n == m { return nil }
        var lines: [String] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i].matches(recorded[j]) {
                lines.append("  \(recorded[j])")
                i += 1
                j += 1
            } else if i < n, j == m || lengths[i + 1][j] >= lengths[i][j + 1] {
                lines.append("− \(expected[i])")
                i += 1
            } else {
                lines.append("+ \(recorded[j])")
                j += 1
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The changes of a commit, one per leaf key: a change of `info.counter` is not also recorded
    /// as a change of `info`.
    static func leaves(of changes: SubstanceChanges) -> [Change] {
        changes.markEscaped()
        let all = changes.all
        let keys = all.map { $0.key() }
        let name = changes.substance.name()
        var leaves: [Change] = []
        let secrets = changes.secrets
        for (index, change) in all.enumerated() {
            let key = keys[index]
            let prefix = key + "."
            guard !keys.contains(where: { $0.hasPrefix(prefix) }) else { continue }
            let (old, new) = (change.oldValue(), change.newValue())
            leaves.append(
                Change(
                    substance: name, key: key, changes: changes, slot: index,
                    shown: (shown(old, key: key, secrets: secrets), shown(new, key: key, secrets: secrets))))
        }
        return leaves
    }

    /// `value`, at `key`, as a report shows it: rendered, or with the secrets in it redacted.
    private static func shown(_ value: Any?, key: String, secrets: SecretKeys) -> String {
        if secrets.isEmpty { return render(value) }
        let progress = secrets.progress(at: key)
        if progress.isDead { return render(value) }
        if progress.isSecret(in: secrets) { return "<redacted>" }
        guard let value = value.flatMap(unwrappingOptionals) else { return "nil" }
        return JournalValue(encoding: value).redacting(secrets, from: progress).description
    }

    static func render(_ value: Any?) -> String {
        guard let value = value.flatMap(unwrappingOptionals) else { return "nil" }
        return String(reflecting: value)
    }

    static func equal<Value: Equatable>(_ recorded: Any?, _ expected: Value?) -> Bool {
        let recorded = recorded.flatMap(unwrappingOptionals)
        guard let expected else { return recorded == nil }
        return (recorded as? Value) == expected
    }
}

extension ChangeProbe {
    /// The probe's observer of its substances: records each commit's leaf changes, on the bus.
    private final class Recorder: SubstanceObserver {
        /// The changes recorded and not yet taken.
        let recorded = LockedValue<[Change]>([])

        func didCommit(_ commit: Commit) {
            let leaves = ChangeProbe.leaves(of: commit.changes)
            recorded.withLock { $0.append(contentsOf: leaves) }
        }
    }
}
