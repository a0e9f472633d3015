import FlaskTestSupport
import FluxBus
import Foundation
import Reactors
import Substances
import Testing

@testable import FlaskJournalTool
@testable import FlaskTools

private struct NoteState: State {
    var text = ""
}

private enum NoteMixers: SubstanceMixer {
    case write
}

/// A journal of `texts.count` mixes, each writing one text into the state and the payload.
/// The exit status of `flask-journal timeline` (run in process) on a file of `bytes` in `folder`;
/// what it says on standard error goes to `errors`.
private func timelineStatus(of bytes: Data, in folder: URL, errors: Recorder<String>) throws -> Int32 {
    let tool = JournalTool(standardOutput: { _ in }, standardError: { errors.append($0) })
    let input = folder.appendingPathComponent("\(UUID().uuidString).jsonl")
    try bytes.write(to: input)
    return tool.run(["timeline", input.path, "-o", folder.appendingPathComponent("out.html").path])
}

private func journal(of texts: [String]) async -> MixJournal {
    let bus = Flux()
    let journal = MixJournal()
    bus.use(journal)
    let note = ReactiveSubstance<NoteState, NoteMixers>(name: "note", bus: bus) { define in
        define(mix: .write) { note, payload, react, _ in
            note.prop.text = payload?["text"] as? String ?? ""
            react()
        }
    }
    for text in texts { bus.dispatch(NoteMixers.write, payload: ["text": text]) }
    await bus.flush()
    withExtendedLifetime(note) {}
    return journal
}

/// A random string of scalars JSON readers trip on: line and paragraph separators, NEL, NUL and
/// other controls, quotes, backslashes, the replacement character (what a lone surrogate becomes),
/// astral characters, and plain text.
private func trickyString(_ random: inout SeededRandom) -> String {
    let pool: [Unicode.Scalar] = [
        "\u{2028}", "\u{2029}", "\u{85}", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\n", "\r", "\t", "\"", "\\", "/",
        "\u{FFFD}", "\u{1F600}", "\u{10FFFF}", "é", "a", " ", "<", ">", "&", "\u{200B}", "\u{FEFF}",
    ]
    var scalars = String.UnicodeScalarView()
    for _ in 0..<Int.random(in: 0..<24, using: &random) { scalars.append(pool.randomElement(using: &random)!) }
    return String(scalars)
}

/// A state whose dictionaries have keys spelled like the journal's tags (a client found them
/// read back as tags: a state made unrepresentable, a line that did not read back).
private struct TagNamed: State, Equatable {
    var flags: [String: Bool] = [:]
    var names: [String: String] = [:]
    var nested: [String: [String: Int]] = [:]
    var fontSize = 12
    /// A whole `Double`: tagged in the journal's `Codable` form, a number in what `decoded(as:)` reads.
    var scale = 1.0
}

/// A state with a secret and a `_` property, which the journal never records.
private struct Vault: State, Equatable {
    var owner = ""
    var token = ""
    var _cache = 7
    static var secretKeys: Set<String> { ["token"] }
}

private func decoded<T: State>(_ type: T.Type, _ value: JournalValue?) throws -> T {
    try #require(value).decoded(as: type)
}

@Suite("The journal reads back all it writes; flask-journal reads any journal in linear time")
struct JournalRoundTripTests {
    @Test("a state's keys spelled like the journal's tags are keys: recorded, read back, rebuilt and replayed as such")
    func tagNamedKeys() async throws {
        // One key a tag's, alone in its object: what a tag looks like.
        for key in ["$double", "$redacted", "$unrepresentable", "$object"] {
            let value = JournalValue.object([key: .object(["a": .string("2.0"), key: .bool(true)])])
            let single = JournalValue.object([key: .string("x")])
            for value in [value, single, .object([key: single]), .array([single, .object([key: .int(1)])])] {
                #expect(try JSONDecoder().decode(JournalValue.self, from: JSONEncoder().encode(value)) == value)
                var text = ""
                value.appendJSON(to: &text, tagged: true)
                #expect(try JSONDecoder().decode(JournalValue.self, from: Data(text.utf8)) == value, "\(text)")
            }
        }
        // A secret or an unrepresentable value is no JSON: not read as a type.
        // An unrepresentable part, or NaN, is no JSON: not read as a state.
        #expect(throws: DecodingError.self) {
            try JournalValue.object(["fontSize": .unrepresentable(type: "T")]).decoded(as: TagNamed.self)
        }
        #expect(throws: DecodingError.self) {
            try JournalValue.object(["scale": .double(.nan)]).decoded(as: TagNamed.self)
        }
        // What the journal never records takes a new state's values: a secret (redacted), a `_`
        // property (left out).
        let vault = JournalValue.object(["owner": .string("ada"), "token": .redacted])
        #expect(try vault.decoded(as: Vault.self) == Vault(owner: "ada", token: "", _cache: 7))
        // Tags nested in each other, damaged inside: thrown at once, not retried (a line of 60
        // took time exponential in their number).
        var nested = #"{"$double":{"$double":5}}"#
        for _ in 0..<60 { nested = #"{"$object":"# + nested + "}" }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JournalValue.self, from: Data(nested.utf8)) }
        // The tags themselves still read back as what they stand for.
        for tagged in [JournalValue.double(2), .redacted, .unrepresentable(type: "T")] {
            #expect(try JSONDecoder().decode(JournalValue.self, from: JSONEncoder().encode(tagged)) == tagged)
        }

        let bus = Flux(label: "roundTrip.tagNamed")
        let name = "roundTrip.tagNamed"
        let prefs = Substance<TagNamed>(name: name, bus: bus)
        // Set before the journal is used: in the starting state it records.
        await ChainReaction().mix(prefs) { $0.prop.flags["$double"] = true }.reactAndWait()
        let journal = MixJournal()
        bus.use(journal)
        await ChainReaction().mix(prefs) {
            $0.prop.fontSize = 18
            $0.prop.scale = 2
        }
        .reactAndWait()
        await ChainReaction().mix(prefs) {
            $0.prop.names["$redacted"] = "r"
            $0.prop.nested["$object"] = ["$unrepresentable": 1]
        }
        .reactAndWait()
        await ChainReaction().mix(prefs) { $0.prop.names["$redacted"] = nil }.reactAndWait()
        await ChainReaction().mix(prefs) { $0.prop.nested["$object"]?["$double"] = 2 }.reactAndWait()
        let document = journal.document
        #expect(try decoded(TagNamed.self, document.startStates[name]).flags == ["$double": true])
        for read in [document, try MixJournal.Document(jsonLines: journal.jsonLines())] {
            let last = try #require(read.entries.last?.serial)
            #expect(try decoded(TagNamed.self, read.states(after: last)[name]) == prefs.state)
        }

        let replayBus = Flux(label: "roundTrip.tagNamed.replay")
        let fresh = Substance<TagNamed>(name: name, bus: replayBus)
        let replay = await MixJournal.replay(
            try MixJournal.Document(jsonLines: journal.jsonLines()), on: replayBus, substances: [fresh])
        #expect(replay.reproducesRecording, "\(replay)")
        #expect(fresh.state == prefs.state)
    }

    @Test(
        "random Unicode strings: exported, read back and exported again, the same lines",
        arguments: [1, 2, 3] as [UInt64])
    func roundTrip(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let texts = (0..<200).map { _ in trickyString(&random) }
        let lines = await journal(of: texts).jsonLines()
        // One line per entry, for any reader: no separator a reader splits on is left unescaped.
        #expect(!lines.unicodeScalars.contains { ["\u{2028}", "\u{2029}", "\u{85}", "\r"].contains($0) })
        let entries = try MixJournal.entries(fromJSONLines: lines)
        #expect(entries.count == texts.count)
        #expect(entries.map { $0.payload?["text"] } == texts.map { JournalValue.string($0) })
        #expect(try MixJournal.Document(jsonLines: lines).jsonLines() == lines)
        // The tool reads the library's own file.
        #expect(try JournalTool.timelinePage(fromJSONLines: lines, title: nil).contains("data-mix-serial"))
    }

    @Test("a value nested 500 deep reads back, and its page is written")
    func deepNesting() async throws {
        let lines = await journal(of: Array(repeating: "PLACEHOLDER", count: 10)).jsonLines()
        let deep = String(repeating: "{\"a\":", count: 500) + "1" + String(repeating: "}", count: 500)
        let text = lines.replacingOccurrences(of: "\"PLACEHOLDER\"", with: deep)
        // Read linearly: each level of an object is read without a failed attempt (this took 27 s
        // in a debug build when every level tried the scalars first; 0.1 s now).
        let entries = try MixJournal.entries(fromJSONLines: text)
        #expect(try MixJournal.Document(jsonLines: text).jsonLines() == text)
        #expect(entries.count == 10)
        var depth = 0
        var value = entries[0].payload?["text"]
        while case .object(let children)? = value {
            depth += 1
            value = children["a"]
        }
        #expect(depth == 500)
        #expect(try JournalTool.timelinePage(fromJSONLines: text, title: nil).contains("data-mix-serial"))
    }

    @Test("a changed value beyond the journal's limit is cut on import, as it is when recorded")
    func valueLimitOnImport() async throws {
        let lines = await journal(of: ["PLACEHOLDER"]).jsonLines()
        let long = "\"" + String(repeating: "x", count: 1_000_000) + "\""
        let entries = try MixJournal.entries(
            fromJSONLines: lines.replacingOccurrences(of: "\"PLACEHOLDER\"", with: long))
        let change = try #require(entries.first?.changes.first?.values?.first)
        guard case .string(let text) = change.new else {
            Issue.record("the value was not read back: \(change)")
            return
        }
        #expect(change.cut)
        #expect(text.utf8.count < 5 * MixJournal.valueLimit)
        #expect(text.hasSuffix("(1000000 characters)"))
    }

    @Test(
        "flask-journal's exit statuses: empty input and blank lines are an empty journal, bad bytes are not a journal")
    func exitStatuses() throws {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let errors = Recorder<String>()
        func status(_ bytes: [UInt8]) throws -> Int32 {
            try timelineStatus(of: Data(bytes), in: folder, errors: errors)
        }
        #expect(try status([]) == 0)
        #expect(try status(Array("\n\n  \n\t\n".utf8)) == 0)
        #expect(try status([0x7B, 0xFF, 0xFE, 0x7D, 0x0A]) == 65)
        #expect(errors.all.last?.contains("UTF-8") == true)
        #expect(try status(Array("{}\nnot json\n".utf8)) == 65)
        #expect(errors.all.last?.contains("line 1") == true)
    }

    @Test("flask-journal names the bad line of a file: the last one without its newline, one past a megabyte of lines")
    func lineNumbersOfAFile() async throws {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let errors = Recorder<String>()
        func error(reading text: String) throws -> String? {
            try timelineStatus(of: Data(text.utf8), in: folder, errors: errors) == 65 ? errors.all.last : nil
        }
        let lines = await journal(of: ["a", "b"]).jsonLines()
        let count = lines.split(separator: "\n").count
        // The last line cut, with no newline after it (a client found it called one line too far).
        let cut = String(lines.dropLast(20))
        #expect(try error(reading: cut)?.contains("line \(count):") == true, "\(errors.all.last ?? "")")
        // Lines read in chunks of a megabyte: the numbers run on across them.
        let blank = String(repeating: "\n", count: 1_500_000)
        #expect(try error(reading: blank + "not json\n")?.contains("line 1500001:") == true, "\(errors.all.last ?? "")")
        #expect(
            try error(reading: lines + blank + "not json")?.contains("line \(count + 1_500_001):") == true,
            "\(errors.all.last ?? "")")
    }

    @Test("a byte order mark is skipped; nesting past the reader's limit is said as such, with its line")
    func bomAndNesting() async throws {
        let lines = await journal(of: ["a"]).jsonLines()
        let withBOM = "\u{FEFF}" + lines
        #expect(try MixJournal.Document(jsonLines: withBOM).entries.count == 1)
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect {
            // The export ends its last line: the deep one is line 3.
            try MixJournal.Document(jsonLines: lines + deep)
        } throws: { error in
            let error = error as? MixJournal.Document.LineError
            return error?.line == 3 && error?.reason.contains("nested") == true
        }
    }

    @Test(
        "flask-journal reads a line at a time: 10 MB of blank lines in bounded memory",
        .disabled(if: isThreadSanitized, "the sanitizer's shadow memory is not the tool's"))
    func streamingMemory() async throws {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blank = folder.appendingPathComponent("blank.jsonl")
        try Data(repeating: UInt8(ascii: "\n"), count: 10_000_000).write(to: blank)
        let (status, peak) = try await runJournalTool(
            ["timeline", blank.path, "-o", folder.appendingPathComponent("b.html").path])
        #expect(status == 0)
        #expect(peak < 200 << 20, "peak resident memory \(peak >> 20) MB for 10 MB of blank lines")
    }

    /// Runs the `flask-journal` executable built beside the tests; its exit status and its own peak
    /// resident memory, in bytes (`wait4` reports the one child's, whatever other tests run).
    /// Waited for on a thread of its own: blocking in `wait4` on one of the concurrency pool's two
    /// threads starved every other test of the process.
    private func runJournalTool(_ arguments: [String]) async throws -> (Int32, Int) {
        let path = siblingExecutable("flask-journal").path
        var pid = pid_t()
        let spawned: Int32 = {
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            return posix_spawn(&pid, path, nil, nil, argv, environ)
        }()
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        let child = pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                #if canImport(Darwin)
                    var usage = rusage()
                    _ = wait4(child, &status, 0, &usage)
                    let bytes = usage.ru_maxrss  // bytes on Apple platforms
                #else
                    // Linux keeps the spawning process's high-water mark in the child's `ru_maxrss`
                    // (posix_spawn shares the test process's memory until the exec): the test
                    // process's size, not the tool's. The tool's own mark is its `VmHWM`, which only
                    // grows: the last one read before it exits.
                    var bytes = 0
                    while waitpid(child, &status, WNOHANG) == 0 {
                        bytes = max(bytes, highWaterMark(of: child) ?? 0)
                        usleep(5_000)
                    }
                #endif
                continuation.resume(returning: ((status >> 8) & 0xFF, bytes))
            }
        }
    }

    /// The peak resident memory of the live process `pid` (`VmHWM`), in bytes.
    private func highWaterMark(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
        }
        return nil
    }
}
