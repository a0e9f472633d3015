import FlaskTestSupport
import FluxBus
import Foundation
import Testing

@testable import FlaskJournalTool
@testable import FlaskTools
@testable import Substances

/// A notebook: a nested structure, a list long enough to be cut, a secret, a double.
private struct NotebookState: State, Equatable {
    struct Meta: Codable, Sendable, Equatable {
        var author = ""
        var revision = 0
        var ratio = 0.0
    }
    var title = ""
    var meta = Meta()
    var words: [String] = []
    var token = ""
    static var secretKeys: Set<String> { ["token"] }
}

private enum NotebookMixers: SubstanceMixer { case edit, fail }

/// A typed action, recorded with its fields.
private struct Rename: FlaskAction, Codable {
    let title: String
}

/// Stops every mix whose payload says `stop`.
private final class StopsWhenAsked: FluxMiddleware {
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        event.payload?["stop"] != nil ? .stop(reason: "the payload asked to stop") : .pass
    }
}

private struct TallyState: State, Equatable {
    var count = 0
}

private enum TallyMixers: SubstanceMixer { case increment }

/// Headless chromium, where it is installed.
private enum Chromium {
    static let path = "/usr/bin/chromium"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs chromium headless on `url` with `arguments` and a profile of its own; returns what it
    /// wrote to its standard output. Fails after `timeout`.
    static func run(_ arguments: [String], url: URL, fragment: String, timeout: Duration = .seconds(40)) async throws
        -> String
    {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--hide-scrollbars", "--user-data-dir=\(folder.appendingPathComponent("profile").path)",
            ] + arguments + [url.absoluteString + "#" + fragment]
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            try handle.close()
            throw TimedOut(seconds: timeout)
        }
        try handle.close()
        return try String(contentsOf: output, encoding: .utf8)
    }

    struct TimedOut: Error, CustomStringConvertible {
        let seconds: Duration
        var description: String { "chromium did not finish within \(seconds)" }
    }
}

// Serialized: the browser tests would otherwise load their pages at the same time, and one of them
// measures how long a page takes.
@Suite("Mix journal: the timeline page", .serialized)
struct MixJournalTimelineTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func notebook(_ bus: Flux) -> ReactiveSubstance<NotebookState, NotebookMixers> {
        ReactiveSubstance<NotebookState, NotebookMixers>(name: "notebook", bus: bus) { define in
            define(mix: .edit) { notebook, payload, react, _ in
                if let title = payload?["title"] as? String { notebook.prop.title = title }
                if let author = payload?["author"] as? String { notebook.prop.meta.author = author }
                if let revision = payload?["revision"] as? Int { notebook.prop.meta.revision = revision }
                if let ratio = payload?["ratio"] as? Double { notebook.prop.meta.ratio = ratio }
                if let count = payload?["words"] as? Int { notebook.prop.words = (0..<count).map { "word\($0)" } }
                // The token is made here, as a sign-in would: not in the payload, which the journal records.
                if payload?["signIn"] != nil { notebook.prop.token = "tok-SECRET" }
                react()
            }
            define(mix: .fail) { notebook, _, _, abort in
                notebook.prop.meta.revision = -1
                abort()
            }
            define(Rename.self) { notebook, action, react, _ in
                notebook.prop.title = action.title
                react()
            }
        }
    }

    /// A session of an editor and a notebook: an exclusive mix holding a lock, nested keys, a cut
    /// list, a secret, a typed action, aborts, a stopped mix, whole and fractional doubles. Read
    /// back from its JSON lines with the dates and durations fixed, so that the page (and its
    /// screenshot) is the same in every run.
    private func session() async throws -> MixJournal.Document {
        let bus = Flux()
        let journal = MixJournal()
        bus.use(StopsWhenAsked())
        bus.use(journal)
        let editor = Editor(name: "editor", bus: bus)
        let notebook = notebook(bus)
        let lock = bus.lock(withMixer: "audit", autorelease: true)
        bus.dispatch(NotebookMixers.edit, payload: ["title": "Plans <script>alert(1)</script>"])
        bus.dispatch(.type, ["text": "hello"])
        bus.dispatch(.type, ["text": " world"])
        bus.dispatch(NotebookMixers.edit, payload: ["author": "ada", "revision": 1])
        bus.dispatch(.increment, ["by": 2])
        // Beyond the journal's value limit: the list is cut.
        bus.dispatch(NotebookMixers.edit, payload: ["words": 8_000])
        bus.dispatch(NotebookMixers.edit, payload: ["signIn": true])
        bus.dispatch(Rename(title: "</script><b>bold</b> & 'quoted'"))
        bus.dispatch(NotebookMixers.fail)
        bus.dispatch(NotebookMixers.edit, payload: ["title": "never", "stop": true])
        bus.dispatch(.tag, ["tags": ["draft", "todo"], "weight": 2.0])
        bus.dispatch(NotebookMixers.edit, payload: ["ratio": 2.0, "revision": 2])
        bus.dispatch(.refuse)
        bus.dispatch(NotebookMixers.edit, payload: ["ratio": 0.25])
        bus.dispatch(.increment)
        await bus.flush()
        #expect(lock.isReleased)
        #expect(notebook.state.meta.ratio == 0.25 && editor.state.count == 3)
        let lines = journal.jsonLines().split(separator: "\n").enumerated().map { index, line in
            Self.fixingDateAndDuration(of: String(line), index: index)
        }
        return try MixJournal.Document(jsonLines: lines.joined(separator: "\n"))
    }

    /// `line` with its date set to 2025-05-01 09:30 plus `index` times 1.25 seconds, and its duration
    /// to a few tens of microseconds.
    private static func fixingDateAndDuration(of line: String, index: Int) -> String {
        var fields = line
        if let range = fields.range(of: #""date":"[^"]*""#, options: .regularExpression) {
            let date = Date(timeIntervalSince1970: 1_746_091_800 + Double(index) * 1.25)
            let formatter = ISO8601DateFormatter()
            fields.replaceSubrange(range, with: "\"date\":\"\(formatter.string(from: date))\"")
        }
        if let range = fields.range(of: #""microseconds":[0-9.e+-]+"#, options: .regularExpression) {
            fields.replaceSubrange(range, with: "\"microseconds\":\(Double(18 + (index * 37) % 90) + 0.5)")
        }
        return fields
    }

    @Test("the page is self-contained, has a row per mix and each changed key with its values, escaped")
    func markup() async throws {
        let document = try await session()
        let page = document.timelineHTML(title: "Session <1> & \"two\"")
        for forbidden in ["http://", "https://", "<link", "src=", "@import", "url("] {
            #expect(!page.contains(forbidden), "the page refers to something outside it: \(forbidden)")
        }
        #expect(page.contains("<title>Session &lt;1&gt; &amp; &quot;two&quot;</title>"))
        #expect(document.entries.count == 16)
        for entry in document.entries {
            let row = try #require(Self.row(entry.serial, in: page), "no row for mix \(entry.serial)")
            for change in entry.changes {
                for value in change.values ?? [] {
                    let old = value.oldExists ? TimelinePage.escaped(value.old.compactJSON) : "(none)"
                    let new = value.newExists ? TimelinePage.escaped(value.new.compactJSON) : "(none)"
                    let line = try #require(
                        Self.changeLine(substance: change.substance, key: value.key, in: row),
                        "mix \(entry.serial): no line for \(change.substance).\(value.key)")
                    #expect(line.contains(">\(old)</span>→<span class=\"new"), "\(line)")
                    #expect(line.contains(">\(new)</span>"), "\(line)")
                    #expect(line.contains("badge cut") == value.cut)
                }
            }
        }
        // Values as compact JSON text, escaped; nested keys, the cut list, the secret.
        let title = try #require(Self.changeLine(substance: "notebook", key: "title", in: page))
        #expect(title.contains(#"<span class="new">&quot;Plans &lt;script&gt;alert(1)&lt;/script&gt;&quot;</span>"#))
        #expect(!page.contains("<script>alert(1)"), "not even in the script's data")
        #expect(page.contains(#"&quot;&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt; &amp; &#39;quoted&#39;&quot;"#))
        let author = try #require(Self.changeLine(substance: "notebook", key: "meta.author", in: page))
        #expect(author.contains(#"<span class="old">&quot;&quot;</span>→<span class="new">&quot;ada&quot;</span>"#))
        let words = try #require(Self.changeLine(substance: "notebook", key: "words", in: page))
        #expect(words.contains("badge cut") && words.contains("more"))
        let token = try #require(Self.changeLine(substance: "notebook", key: "token", in: page))
        #expect(token.contains(#"<span class="new redacted">&lt;redacted&gt;</span>"#), "\(token)")
        #expect(!page.contains("tok-SECRET"))
        let ratio = try #require(Self.changeLine(substance: "notebook", key: "meta.ratio", in: page))
        #expect(ratio.contains(#"<span class="new">2.0</span>"#), "\(ratio)")
        // Typed actions, stops, aborts, locks.
        #expect(page.contains(#"<span class="mixer">Rename</span><span class="badge action">action</span>"#))
        #expect(page.contains("stopped by <b>StopsWhenAsked</b>: the payload asked to stop"))
        #expect(
            page.contains(
                #"data-substance="notebook"><span class="substance">notebook</span><span class="badge abort">aborted</span>"#
            ))
        #expect(page.contains(#"<span class="badge kind">exclusive</span>"#) && page.contains("locks held #"))
        // Two script elements, the data one closed once: `</script>` in a value is written `<\/script>`.
        #expect(page.components(separatedBy: "<script").count == 3)
        #expect(page.components(separatedBy: "</script>").count == 3)
        let data = try #require(Self.slice(of: page, from: #"id="journal-data">"#, to: "</script>"))
        #expect(data.contains(#"\u003cscript>alert(1)<\/script>"#) && data.contains(#"<\/script>\u003cb>bold<\/b>"#))
        #expect(!data.contains("tok-SECRET"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        #expect((json["mixes"] as? [Any])?.count == 16)
        #expect((json["start"] as? [String: Any])?.keys.sorted() == ["editor", "notebook"])
    }

    @Test("an empty journal, one without values, and one that dropped mixes make a page too")
    func withoutValues() async throws {
        let empty = MixJournal.Document(entries: []).timelineHTML()
        #expect(empty.contains("No mixes recorded.") && !empty.contains("data-mix-serial=\""))
        let bus = Flux()
        let journal = MixJournal(recordsPayloadValues: false)
        bus.use(journal)
        let editor = Editor(name: "editor", bus: bus)
        bus.dispatch(.type, ["text": "secret words"])
        await bus.flush()
        let page = journal.timelineHTML()
        #expect(!page.contains("secret words"))
        #expect(page.contains(#"data-key="info.words""#) && page.contains("value not recorded"))
        #expect(page.contains("No state recorded for editor"))
        _ = editor

        let small = MixJournal(capacity: 2)
        let other = Flux()
        other.use(small)
        let kept = Editor(name: "editor", bus: other)
        for _ in 0..<3 { other.dispatch(.increment) }
        await other.flush()
        let dropped = small.timelineHTML(title: "Small")
        #expect(dropped.contains("<b>1</b> earlier mix dropped"))
        #expect(!dropped.contains(#"data-mix-serial="1""#) && dropped.contains(#"data-mix-serial="3""#))
        // The state before the first kept mix has the dropped one's values folded in.
        #expect(small.document.states(after: 2)["editor"]?.value(at: "count") == .int(2))
        #expect(kept.state.count == 3)
    }

    @Test(
        "in a browser, the page shows the rows, the values and the state after the mix of #mix=N",
        .enabled(if: Chromium.isInstalled, "needs /usr/bin/chromium"), .hangGuard)
    func inBrowser() async throws {
        let document = try await session()
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("timeline.html")
        try document.timelineHTML(title: "A session of an editor and a notebook").write(
            to: url, atomically: true, encoding: .utf8)
        // After the stopped mix: the cut list, the secret, the action's title and an abort are behind.
        let selected = document.entries[10].serial
        let dom = try await Chromium.run(
            ["--dump-dom", "--virtual-time-budget=5000"], url: url, fragment: "mix=\(selected)")
        for entry in document.entries {
            #expect(dom.contains("data-mix-serial=\"\(entry.serial)\""), "no row for mix \(entry.serial)")
        }
        let author = try #require(Self.changeLine(substance: "notebook", key: "meta.author", in: dom))
        #expect(Self.text(after: #"<span class="old">"#, in: author) == #""""#)
        #expect(Self.text(after: #"<span class="new">"#, in: author) == #""ada""#)
        #expect(Self.text(ofElementWithID: "selected-mix", in: dom) == "\(selected)")
        let expected = document.states(after: selected)
        #expect(expected.keys.sorted() == ["editor", "notebook"])
        for (substance, state) in expected {
            let text = try #require(
                Self.text(after: "data-state-substance=\"\(substance)\">", in: dom), "no state of \(substance)")
            let shown = try JSONDecoder().decode(JournalValue.self, from: Data(Self.unescaped(text).utf8))
            #expect(shown == state, "\(substance) after mix \(selected)")
        }
        // Not the state after the last mix: the rebuild stopped at the selected one.
        #expect(expected != document.states(after: document.entries.last!.serial))
        #expect(expected["notebook"]?.value(at: "token") == .redacted)

        // The filters, from the address too: the editor's mixes that changed a key with `info` in it.
        let filtered = try await Chromium.run(
            ["--dump-dom", "--virtual-time-budget=5000"], url: url,
            fragment: "mix=\(selected)&substance=editor&key=Info")
        let expectedRows = document.entries.filter { entry in
            entry.changes.contains {
                $0.substance == "editor" && ($0.values ?? []).contains { $0.key.contains("info") }
            }
        }
        #expect(expectedRows.count == 3)
        for entry in document.entries {
            let tag = try #require(Self.slice(of: filtered, from: "data-mix-serial=\"\(entry.serial)\"", to: ">"))
            #expect(
                tag.contains("hidden") != expectedRows.contains { $0.serial == entry.serial }, "mix \(entry.serial)")
        }
        #expect(filtered.contains("3 of 16 mixes shown"))

        // By the mix's name (a mixer, an action, a chain's label), part of it, any case.
        let named = try await Chromium.run(
            ["--dump-dom", "--virtual-time-budget=5000"], url: url, fragment: "mix=\(selected)&name=rEnAmE")
        for entry in document.entries {
            let tag = try #require(Self.slice(of: named, from: "data-mix-serial=\"\(entry.serial)\"", to: ">"))
            #expect(
                tag.contains("hidden") != entry.mixerDescription.lowercased().contains("rename"), "mix \(entry.serial)")
        }
        #expect(named.contains("1 of 16 mixes shown"))

        // What the docs show: the page at a mix in the middle, as a 1280 × 800 window.
        let screenshot = folder.appendingPathComponent("timeline.png")
        _ = try await Chromium.run(
            ["--screenshot=\(screenshot.path)", "--window-size=1280,800", "--virtual-time-budget=5000"], url: url,
            fragment: "mix=\(document.entries[8].serial)")
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let images = Self.root.appendingPathComponent("docs/images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let published = images.appendingPathComponent("timeline.png")
        if (try? Data(contentsOf: published)) != png { try png.write(to: published) }
    }

    @Test(
        "in a browser, the page rebuilds states as states(after:) does: paths through values, aborts, no values",
        .enabled(if: Chromium.isInstalled, "needs /usr/bin/chromium"), .hangGuard)
    func rebuildsLikeTheDocument() async throws {
        func entry(_ serial: Int, _ changes: String) -> String {
            #"{"serial":\#(serial),"kind":"mixer","mixer":"edit","changes":[\#(changes)],"observersCalled":1,"#
                + #""reactorsNotified":0,"locksHeld":[],"microseconds":1.5,"date":"2025-05-01T09:30:00Z"}"#
        }
        func change(_ substance: String, values: String?, aborted: Bool = false, start: String? = nil) -> String {
            let values = values.map { #","values":[\#($0)]"# } ?? ""
            let start = start.map { #","start":\#($0)"# } ?? ""
            return #"{"substance":"\#(substance)","keys":["k"],"aborted":\#(aborted)\#(values)\#(start)}"#
        }
        let lines = [
            // An object of the state's whose one key is a tag's, inside an `$object` tag.
            #"{"flaskJournal":{"version":2,"startStates":{"a":{"n":1,"obj":{"x":1},"s":"t","#
                + #""weird":{"$object":{"$double":"x"}}},"#
                + #""b":{"list":[1,2],"rows":[{"t":"a"},{"t":"b"}]}}}}"#,
            // Through a number: it becomes an object.
            entry(1, change("a", values: #"{"key":"n.deep","old":null,"new":5}"#)),
            // An object, then a key below it: the recorded object is not changed in place.
            entry(2, change("a", values: #"{"key":"obj","old":{"x":1},"new":{"y":{"z":1}}}"#)),
            entry(3, change("a", values: #"{"key":"obj.y.w","old":null,"new":2}"#)),
            // Aborted, and without values: skipped.
            entry(
                4,
                change("a", values: #"{"key":"s","old":"t","new":"no"}"#, aborted: true) + ","
                    + change("b", values: nil)),
            // A substance without a starting state; new paths; a whole double; a key named __proto__.
            entry(
                5,
                change("c", values: #"{"key":"q","old":null,"new":1}"#) + ","
                    + change(
                        "a",
                        values: #"{"key":"new.path.here","old":null,"new":{"$double":"2.0"}},"#
                            + #"{"key":"__proto__.polluted","old":null,"new":true}"#)),
            entry(
                6,
                change("b", values: #"{"key":"list","old":[1,2],"new":[3]}"#) + ","
                    + change("a", values: #"{"key":"s","old":"t","new":{"$redacted":true}}"#)),
            // A dictionary key with a dot of its own, escaped in the dotted key: one component.
            entry(7, change("a", values: #"{"key":"esc.a\\.b","old":null,"new":7}"#)),
            // An array's element at its index (how the journal records an array whose length
            // stayed), and a path through an element; an object's key that looks like an index.
            entry(
                8,
                change(
                    "b",
                    values: #"{"key":"list.0","old":3,"new":4},{"key":"rows.1.t","old":"b","new":"c"},"#
                        + #"{"key":"digits.0","old":null,"new":1}"#)),
            // Keys that no longer exist (a removed entry, an optional become nil): absent, not
            // null; one below an object the rebuild made itself; one that was never there.
            entry(
                9,
                change(
                    "a",
                    values: #"{"key":"obj.y.z","old":1},{"key":"n","old":{"deep":5}},"#
                        + #"{"key":"never.there","old":null}"#)),
            // An array grown and shrunk (how the journal records a new length): new elements
            // appended in order, gone ones from the last; a key removed through an element.
            entry(
                10,
                change(
                    "b",
                    values: #"{"key":"list.1","new":5},{"key":"list.2","new":6},"#
                        + #"{"key":"rows.1","old":{"t":"c"}},{"key":"rows.0.t","old":"a"}"#)),
            // A substance made again under a known name: its states start again from its own.
            entry(11, change("b", values: #"{"key":"list.0","old":0,"new":9}"#, start: #"{"list":[0],"fresh":true}"#)),
            // A key below that object set to another such object, and a tag beside it.
            entry(
                12,
                change(
                    "a",
                    values: #"{"key":"weird.$double","old":"x","new":{"$object":{"$redacted":true}}},"#
                        + #"{"key":"weird.$redacted","old":null,"new":{"$redacted":true}}"#)),
        ]
        let document = try MixJournal.Document(jsonLines: lines.joined(separator: "\n"))
        #expect(document.entries.count == 12)
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("timeline.html")
        let page = document.timelineHTML()
        try page.write(to: url, atomically: true, encoding: .utf8)
        // A side where the key did not exist is shown as such, not as null.
        #expect(page.contains(#"<span class="old none">(none)</span>→<span class="new">5</span>"#))
        #expect(page.contains(#"<span class="old">&quot;a&quot;</span>→<span class="new none">(none)</span>"#))
        // The one change whose states start again says so on its row: the state panel's jump
        // to the new substance's own state has a visible cause.
        #expect(page.components(separatedBy: #"<li class="change restart" data-substance="b">"#).count == 2)
        #expect(page.components(separatedBy: ">starts again</span>").count == 2)
        // 99 is no mix's serial: the state after all of them, as states(after:) gives.
        for serial: UInt64 in [3, 4, 8, 9, 10, 11, 12, 99] {
            let dom = try await Chromium.run(
                ["--dump-dom", "--virtual-time-budget=5000"], url: url, fragment: "mix=\(serial)")
            let expected = document.states(after: serial)
            #expect(expected.keys.sorted() == ["a", "b"])
            for (substance, state) in expected {
                let text = try #require(Self.text(after: "data-state-substance=\"\(substance)\">", in: dom))
                let shown = try JSONDecoder().decode(JournalValue.self, from: Data(Self.unescaped(text).utf8))
                #expect(shown == state, "\(substance) after mix \(serial)")
            }
        }
        let last = try #require(document.states(after: 6)["a"])
        #expect(last.value(at: "obj") == .object(["y": .object(["z": .int(1), "w": .int(2)])]))
        #expect(last.value(at: "new.path.here") == .double(2) && last.value(at: "s") == .redacted)
        let escaped = try #require(document.states(after: 7)["a"])
        #expect(escaped.value(at: "esc") == .object(["a.b": .int(7)]))
        #expect(escaped.value(at: #"esc.a\.b"#) == .int(7))
        let elements = try #require(document.states(after: 8)["b"])
        #expect(elements.value(at: "list") == .array([.int(4)]))
        #expect(elements.value(at: "rows") == .array([.object(["t": .string("a")]), .object(["t": .string("c")])]))
        #expect(elements.value(at: "digits") == .object(["0": .int(1)]))
        let removed = try #require(document.states(after: 9)["a"])
        #expect(removed.value(at: "n") == nil && removed.value(at: "obj.y.z") == nil, "\(removed)")
        #expect(removed.value(at: "obj.y.w") == .int(2))
        let resized = try #require(document.states(after: 10)["b"])
        #expect(resized.value(at: "list") == .array([.int(4), .int(5), .int(6)]))
        #expect(resized.value(at: "rows") == .array([.object([:])]), "\(resized)")
        let weird = try #require(document.states(after: 12)["a"]?.value(at: "weird"))
        #expect(weird == .object(["$double": .object(["$redacted": .bool(true)]), "$redacted": .redacted]))
        let again = try #require(document.states(after: 11)["b"])
        #expect(again == .object(["list": .array([.int(9)]), "fresh": .bool(true)]), "\(again)")
    }

    @Test(
        "in a browser, the page of 10,000 mixes shows every mix, and the step control the last state",
        .enabled(if: Chromium.isInstalled, "needs /usr/bin/chromium"), .hangGuard)
    func tenThousandMixes() async throws {
        let bus = Flux()
        let journal = MixJournal(capacity: 10_000)
        bus.use(journal)
        let counter = ReactiveSubstance<TallyState, TallyMixers>(name: "counter", bus: bus) { define in
            define(mix: .increment) { counter, _, react, _ in
                counter.prop.count += 1
                react()
            }
        }
        for _ in 0..<10_000 { bus.dispatch(TallyMixers.increment, payload: ["by": 1]) }
        await bus.flush()
        #expect(counter.state.count == 10_000)
        let document = journal.document
        #expect(document.entries.count == 10_000)
        let clock = ContinuousClock()
        let started = clock.now
        let page = journal.timelineHTML()
        let rendered = clock.now - started
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("timeline.html")
        try page.write(to: url, atomically: true, encoding: .utf8)
        let bytes = page.utf8.count
        // The best of up to three loads: another build on the machine slows a single one down.
        var readyTimes: [Double] = []
        let last = document.entries[9_999].serial
        for _ in 0..<3 {
            let dom = try await Chromium.run(
                ["--dump-dom", "--virtual-time-budget=5000"], url: url, fragment: "mix=\(last)")
            let ready = try #require(Self.text(ofElementWithID: "ready-ms", in: dom).flatMap(Double.init))
            readyTimes.append(ready)
            #expect(Self.text(ofElementWithID: "selected-mix", in: dom) == "\(last)")
            #expect(dom.components(separatedBy: "data-mix-serial=").count == 10_001)
            let state = try #require(Self.text(after: #"data-state-substance="counter">"#, in: dom))
            #expect(
                try JSONDecoder().decode(JournalValue.self, from: Data(state.utf8)) == .object(["count": .int(10_000)]))
            if ready < 2_000 { break }
        }
        let best = readyTimes.min() ?? .infinity
        // The time is reported, not asserted: a time goal belongs to the benchmark (a loaded machine,
        // a sanitizer build, moves it); what the test asserts is what the page shows.
        print(
            "timeline of 10,000 mixes: \(bytes) bytes, DOM ready in \(best) ms (loads: \(readyTimes)), "
                + "written by Swift in \(rendered)")
    }

    @Test(
        "a starting state read from JSON lines is cut at the reader's limit, in the first line and in a change's start alike"
    )
    func startStatesCutOnImport() throws {
        let long = String(repeating: "x", count: 10_000)
        let lines = [
            #"{"flaskJournal":{"version":2,"startStates":{"a":{"s":"\#(long)"}}}}"#,
            #"{"serial":1,"kind":"mixer","mixer":"edit","changes":[{"substance":"a","keys":["s"],"aborted":false,"#
                + #""values":[{"key":"s","old":"","new":"y"}],"start":{"s":"\#(long)"}}],"observersCalled":1,"#
                + #""reactorsNotified":0,"locksHeld":[],"microseconds":1.5,"date":"2025-05-01T09:30:00Z"}"#,
        ].joined(separator: "\n")
        func kept(_ value: JournalValue?) -> String? {
            guard case .string(let text) = value?.value(at: "s") else { return nil }
            return text
        }
        let cut = try MixJournal.Document(jsonLines: lines, startLimit: 100)
        for text in [kept(cut.startStates["a"]), kept(cut.entries.first?.changes.first?.start)] {
            let text = try #require(text)
            #expect(text.utf8.count < 200 && text.hasSuffix("(10000 characters)"), "\(text)")
        }
        // At the journal's own limit, the same lines read back whole.
        let whole = try MixJournal.Document(jsonLines: lines)
        #expect(kept(whole.startStates["a"]) == long)
        #expect(kept(whole.entries.first?.changes.first?.start) == long)
    }

    @Test("flask-journal: arguments, usage, and the page of a journal read back from its JSON lines")
    func tool() async throws {
        #expect(
            try JournalTool.parse(["timeline", "in.jsonl", "-o", "out.html"])
                == .timeline(input: "in.jsonl", output: "out.html", title: nil))
        #expect(
            try JournalTool.parse(["timeline", "--title", "T", "in.jsonl", "-o", "-"])
                == .timeline(input: "in.jsonl", output: nil, title: "T"))
        #expect(try JournalTool.parse(["timeline", "-"]) == .timeline(input: "-", output: nil, title: nil))
        #expect(try JournalTool.parse(["--help"]) == .help)
        for bad in [
            [], ["replay", "in.jsonl"], ["timeline"], ["timeline", "a", "b"], ["timeline", "a", "-o"],
            ["timeline", "a", "-x"],
        ] {
            #expect(throws: JournalTool.UsageError.self, "\(bad)") { try JournalTool.parse(bad) }
        }

        let document = try await session()
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("journal.jsonl")
        try document.jsonLines().write(to: input, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("timeline.html")
        let printed = Recorder<String>()
        let errors = Recorder<String>()
        let tool = JournalTool(standardOutput: { printed.append($0) }, standardError: { errors.append($0) })

        #expect(tool.run(["timeline", input.path, "-o", output.path, "--title", "Read back"]) == 0)
        let page = try String(contentsOf: output, encoding: .utf8)
        #expect(page == document.timelineHTML(title: "Read back"))
        #expect(tool.run(["timeline", input.path]) == 0)
        #expect(printed.all.last == document.timelineHTML())
        #expect(errors.all.isEmpty)

        #expect(tool.run(["timeline"]) == 64)
        #expect(errors.all.last?.contains("usage: flask-journal timeline IN.jsonl") == true)
        #expect(tool.run(["timeline", folder.appendingPathComponent("missing.jsonl").path]) == 66)
        let notJSON = folder.appendingPathComponent("notes.txt")
        try "hello\n".write(to: notJSON, atomically: true, encoding: .utf8)
        #expect(tool.run(["timeline", notJSON.path]) == 65)
        #expect(
            tool.run(["timeline", input.path, "-o", folder.appendingPathComponent("no/such/folder.html").path]) == 73)
    }

    // MARK: Reading pages and DOMs

    /// The text between `start` and the next `end` in `text`.
    static func slice(of text: String, from start: String, to end: String) -> String? {
        guard let opening = text.range(of: start),
            let closing = text.range(of: end, range: opening.upperBound..<text.endIndex)
        else { return nil }
        return String(text[opening.upperBound..<closing.lowerBound])
    }

    /// The row of mix `serial`.
    static func row(_ serial: UInt64, in page: String) -> String? {
        slice(of: page, from: "data-mix-serial=\"\(serial)\"", to: "</article>")
    }

    /// The first line of a change of `key` of `substance`.
    static func changeLine(substance: String, key: String, in text: String) -> String? {
        slice(of: text, from: "data-substance=\"\(substance)\" data-key=\"\(key)\">", to: "</li>")
    }

    /// The text after `marker` up to the next tag.
    static func text(after marker: String, in text: String) -> String? {
        slice(of: text, from: marker, to: "<")
    }

    /// The text of the element with `id`, up to its first child element.
    static func text(ofElementWithID id: String, in text: String) -> String? {
        guard let tag = slice(of: text, from: "id=\"\(id)\"", to: "<"), let end = tag.firstIndex(of: ">") else {
            return nil
        }
        return String(tag[tag.index(after: end)...])
    }

    /// Text of a serialized DOM with its entities read.
    static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
    }
}
