import Archive
import FluxBus
import Foundation
import Substances

extension MixJournal.Document {
    /// The journal as one self-contained HTML page, a timeline of its mixes: open it from disk in
    /// any browser (inline style and script only; it loads nothing).
    ///
    /// Each mix is a row: its serial, the mixer or typed action, when it ran and how long it took,
    /// each changed key of each substance with its value before and after (values cut to the
    /// journal's bound and secret ones are marked), the locks held, a middleware's stop and the
    /// substances that aborted. The rows filter by substance and by key. A step control (a slider,
    /// previous and next, a click on a row) shows every substance's state after the selected mix,
    /// rebuilt in the page from ``startStates``, the recorded values and the states where
    /// substances made again start again, as ``states(after:)`` rebuilds it; `#mix=N` in the page's address selects mix `N`.
    ///
    /// The rows are written here, the page's script only rebuilds states and hides rows: a journal
    /// of 10,000 mixes makes a page of a few megabytes that a browser shows in well under two
    /// seconds (see `docs/tools.md`).
    ///
    /// For scripts that read the page: each mix is an element with `data-mix-serial="N"`; each
    /// changed key in it one with `data-substance` and `data-key`, holding elements of class `old`
    /// and `new` with the values as compact JSON. The element with id `selected-mix` holds the
    /// selected serial, the one with id `state` an element per substance with
    /// `data-state-substance="NAME"` whose text is its state as JSON (whole doubles, secrets and
    /// unrepresentable values tagged as in the JSON lines, so that it decodes as a ``JournalValue``).
    public func timelineHTML(title: String = "Flask mix journal") -> String {
        timelineHTML(title: title, droppedCount: 0)
    }

    /// The page, saying that `droppedCount` earlier mixes were dropped to stay within the journal's
    /// capacity.
    func timelineHTML(title: String, droppedCount: Int) -> String {
        var page = TimelinePage(document: self, title: title, droppedCount: droppedCount)
        return page.render()
    }
}

extension MixJournal {
    /// The journal as a self-contained HTML timeline page (see ``Document/timelineHTML(title:)``),
    /// which also says how many mixes were dropped to stay within ``capacity``.
    ///
    /// ```swift
    /// try journal.timelineHTML().write(to: url, atomically: true, encoding: .utf8)
    /// ```
    public func timelineHTML(title: String = "Flask mix journal") -> String {
        document.timelineHTML(title: title, droppedCount: droppedCount)
    }
}

/// Writes the timeline page of a document: the rows as HTML, the values the script needs as one
/// JSON object, the style and the script (``TimelinePage/style``, ``TimelinePage/script``).
struct TimelinePage {
    let document: MixJournal.Document
    let title: String
    let droppedCount: Int
    private var html = ""
    private let dateFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    /// The serials of the page's mixes: an undo's line links only to those.
    private let serials: Set<UInt64>

    init(document: MixJournal.Document, title: String, droppedCount: Int) {
        self.document = document
        self.title = title
        self.droppedCount = droppedCount
        serials = Set(document.entries.map(\.serial))
    }

    /// The page.
    mutating func render() -> String {
        let entries = document.entries
        html.reserveCapacity(1_024 + entries.count * 640)
        var substances = Set(document.startStates.keys)
        var keys = Set<String>()
        var stopped = 0
        var aborted = 0
        for entry in entries {
            if entry.stop != nil { stopped += 1 }
            for change in entry.changes {
                substances.insert(change.substance)
                if change.aborted { aborted += 1 }
                keys.formUnion(change.keys)
                if let values = change.values { keys.formUnion(values.map(\.key)) }
            }
        }
        let sortedSubstances = substances.sorted()

        html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // The page loads nothing: no network, no other file.
        html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        html += "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        html += "<title>"
        escape(title)
        html += "</title>\n<style>\n"
        html += Self.style
        html += "</style>\n</head>\n<body>\n<header>\n<h1>"
        escape(title)
        html += "</h1>\n<p class=\"counts\">"
        count(entries.count, "mix", "mixes")
        html += " · "
        count(sortedSubstances.count, "substance", "substances")
        html += " · "
        count(keys.count, "key", "keys")
        if stopped > 0 {
            html += " · "
            count(stopped, "stopped", "stopped")
        }
        if aborted > 0 {
            html += " · "
            count(aborted, "abort", "aborts")
        }
        if droppedCount > 0 {
            html += " · <span class=\"dropped\">"
            count(droppedCount, "earlier mix dropped", "earlier mixes dropped")
            html += "</span>"
        }
        if let first = entries.first, let last = entries.last {
            html += " · <span class=\"span\">#\(first.serial) "
            html += dateFormatter.string(from: first.date)
            html += " → #\(last.serial) "
            html += dateFormatter.string(from: last.date)
            html += "</span>"
        }
        html += "</p>\n<div class=\"filters\" role=\"search\">\n"
        html += "<label>Substance <select id=\"filter-substance\"><option value=\"\">all</option>"
        for substance in sortedSubstances {
            html += "<option value=\""
            escape(substance)
            html += "\">"
            escape(substance)
            html += "</option>"
        }
        html += "</select></label>\n"
        html += "<label>Mix <input id=\"filter-mix\" type=\"search\" "
        html += "placeholder=\"mixer, action or chain (part of it)\" autocomplete=\"off\"></label>\n"
        html += "<label>Key <input id=\"filter-key\" type=\"search\" list=\"journal-keys\" "
        html += "placeholder=\"any key (part of it)\" autocomplete=\"off\"></label>\n"
        html += "<datalist id=\"journal-keys\">"
        for key in keys.sorted().prefix(2_000) {
            html += "<option value=\""
            escape(key)
            html += "\"></option>"
        }
        html += "</datalist>\n<span id=\"shown\" class=\"muted\"></span>\n</div>\n</header>\n"

        html += "<div class=\"layout\">\n<main id=\"mixes\">\n"
        if entries.isEmpty { html += "<p class=\"empty\">No mixes recorded.</p>\n" }
        for entry in entries { row(entry) }
        html += "</main>\n"
        panel(substances: sortedSubstances)
        html += "</div>\n<div id=\"ready-ms\" hidden></div>\n"
        html += "<script type=\"application/json\" id=\"journal-data\">"
        html += scriptData(entries)
        html += "</script>\n<script>\n"
        html += Self.script
        html += "</script>\n</body>\n</html>\n"
        return html
    }

    // MARK: The rows

    /// One mix as a row.
    private mutating func row(_ entry: MixJournal.Entry) {
        html += "<article class=\"mix"
        if entry.stop != nil { html += " stopped" }
        if entry.changes.contains(where: \.aborted) { html += " aborts" }
        html += "\" data-mix-serial=\"\(entry.serial)\">\n"
        html += "<div class=\"head\"><span class=\"serial\">#\(entry.serial)</span>"
        html += "<span class=\"mixer\">"
        escape(entry.mixerDescription)
        html += "</span>"
        if entry.isAction { html += "<span class=\"badge action\">action</span>" }
        switch entry.kind {
        case .mixer: break
        case .exclusiveMixer: html += "<span class=\"badge kind\">exclusive</span>"
        case .task: html += "<span class=\"badge kind\">task</span>"
        }
        if let dispatched = entry.dispatchedMixer {
            html += "<span class=\"replacing\">replacing "
            escape(dispatched)
            html += "</span>"
        }
        html += "<time>"
        html += dateFormatter.string(from: entry.date)
        html += "</time><span class=\"dur\">"
        html += Self.microseconds(entry.microseconds)
        html += " µs</span></div>\n"
        if let payload = entry.payload, !payload.isEmpty {
            html += "<div class=\"payload\"><code>"
            escape(JournalValue.object(payload).compactJSON)
            html += "</code></div>\n"
        }
        if let action = entry.action {
            html += "<div class=\"payload typed\"><code>"
            escape(action.compactJSON)
            html += "</code></div>\n"
        }
        if !entry.historyStepMixes.isEmpty {
            // Which mixes an undo takes back (a redo makes again), each a link to its row, or
            // said gone when the ring dropped it after the undo was recorded.
            html += "<div class=\"history-step\">\(entry.historyStepVerb) "
            html += entry.historyStepMixes.map { serial in
                serials.contains(serial)
                    ? "<a href=\"#mix=\(serial)\">#\(serial)</a>"
                    : "<span class=\"muted\">#\(serial) (no longer in the journal)</span>"
            }.joined(separator: ", ")
            html += "</div>\n"
        }
        if let stop = entry.stop {
            html += "<div class=\"stop\">stopped by <b>"
            escape(stop.middleware)
            html += "</b>: "
            escape(stop.reason)
            html += "</div>\n"
        }
        if !entry.changes.isEmpty {
            html += "<ul class=\"changes\">"
            for change in entry.changes { self.change(change) }
            html += "</ul>\n"
        }
        if let origin = entry.origin {
            html += "<div class=\"origin\">from <code>"
            escape(origin.description)
            html += "</code></div>\n"
        }
        html += "<div class=\"meta\">\(entry.observersCalled) observer"
        if entry.observersCalled != 1 { html += "s" }
        html += " · \(entry.reactorsNotified) reactor"
        if entry.reactorsNotified != 1 { html += "s" }
        if !entry.locksHeld.isEmpty {
            html += " · <span class=\"locks\">locks held "
            html += entry.locksHeld.map { "#\($0)" }.joined(separator: " ")
            html += "</span>"
        }
        html += "</div>\n</article>\n"
    }

    /// One side of a change line, `old` or `new`. A side where the key did not exist (an entry
    /// added or removed, an element appended or gone) shows as `(none)`, as the live session's
    /// page does: `null` would be a value the state never held.
    private mutating func side(_ name: String, _ value: JournalValue, exists: Bool) {
        html += "<span class=\"\(name)"
        if value == .redacted { html += " redacted" }
        if !exists { html += " none" }
        html += "\">"
        escape(exists ? value.compactJSON : "(none)")
        html += "</span>"
    }

    /// What one substance did in a mix: a line per changed key, after a line that says so when
    /// its states start again here (a substance made again under a known name, or one of two alive
    /// under one name committing after the other): the state panel
    /// jumps to its own state at this mix, and the row shows why.
    private mutating func change(_ change: MixJournal.Change) {
        if change.start != nil {
            substanceLine(change.substance, classes: "restart", key: nil)
            html +=
                "<span class=\"badge restart\" title=\"made again, or one of two alive under this name\">starts again</span>"
            html += "<span class=\"muted\">another substance than the one before under this name</span></li>"
        }
        if change.aborted {
            substanceLine(change.substance, classes: "aborted", key: nil)
            html += "<span class=\"badge abort\">aborted</span></li>"
        } else if let values = change.values {
            for value in values {
                substanceLine(change.substance, classes: value.cut ? "cut" : nil, key: value.key)
                side("old", value.old, exists: value.oldExists)
                html += "→"
                side("new", value.new, exists: value.newExists)
                if value.cut { html += "<span class=\"badge cut\" title=\"cut to the journal's bound\">cut</span>" }
                html += "</li>"
            }
        } else if change.keys.isEmpty {
            substanceLine(change.substance, classes: "unchanged", key: nil)
            html += "<span class=\"muted\">unchanged</span></li>"
        } else {
            // Keys only: the journal recorded no values.
            for key in change.keys {
                substanceLine(change.substance, classes: "keys-only", key: key)
                html += "<span class=\"muted\">value not recorded</span></li>"
            }
        }
    }

    /// Opens a change's line: `<li>`, the substance, the key.
    private mutating func substanceLine(_ substance: String, classes: String?, key: String?) {
        html += "<li class=\"change"
        if let classes { html += " " + classes }
        html += "\" data-substance=\""
        escape(substance)
        if let key {
            html += "\" data-key=\""
            escape(key)
        }
        html += "\"><span class=\"substance\">"
        escape(substance)
        html += "</span>"
        if let key {
            html += "<span class=\"key\">"
            escape(key)
            html += "</span>"
        }
    }

    // MARK: The state panel

    /// The side panel: the step control, the selected mix, an element per substance that has a
    /// starting state (filled by the script).
    private mutating func panel(substances: [String]) {
        let count = document.entries.count
        html += "<aside id=\"panel\">\n<div class=\"stepper\">"
        html += "<button type=\"button\" id=\"prev\" title=\"Previous mix (←)\">◀</button>"
        html +=
            "<input type=\"range\" id=\"step\" min=\"0\" max=\"\(max(0, count - 1))\" value=\"\(max(0, count - 1))\""
        html += " aria-label=\"Mix\"\(count == 0 ? " disabled" : "")>"
        html += "<button type=\"button\" id=\"next\" title=\"Next mix (→)\">▶</button></div>\n"
        html += "<h2>State after mix #<span id=\"selected-mix\">"
        if let last = document.entries.last { html += "\(last.serial)" }
        html += "</span></h2>\n<p id=\"selected-info\" class=\"muted\"></p>\n<div id=\"state\">\n"
        let withStates = substances.filter { document.startStates[$0] != nil }
        for substance in withStates {
            html += "<section class=\"substance-state\"><h3>"
            escape(substance)
            html += "</h3><pre data-state-substance=\""
            escape(substance)
            html += "\"></pre></section>\n"
        }
        html += "</div>\n"
        let without = substances.filter { document.startStates[$0] == nil }
        if !without.isEmpty {
            html += "<p class=\"muted note\">No state recorded for "
            escape(without.joined(separator: ", "))
            html += " (the journal kept no values of "
            html += without.count == 1 ? "it" : "them"
            html += ").</p>\n"
        }
        if withStates.isEmpty, without.isEmpty {
            html += "<p class=\"muted note\">No substances.</p>\n"
        }
        html += "<noscript><p class=\"note\">The states are rebuilt by the page's script.</p></noscript>\n"
        html += "<p class=\"muted help\">Click a mix, drag the slider, or press ← and →.</p>\n</aside>\n"
    }

    // MARK: The script's data

    /// What the script needs, as JSON: the starting states, and per mix its serial and each
    /// substance's new values, each key as its components (escapes undone, so that the script
    /// need not know them):
    /// `{"start":{...},"mixes":[{"s":1,"c":[{"n":"cart","v":[[["total"],4]]}]}]}`; `"a":1` for an
    /// abort, `"r":{...}` for a substance made again under a known name (its state before the mix,
    /// where its states start again), no `v` when no values were recorded; a key that no longer exists (a removed entry, an
    /// optional that became nil) as `[["index","a"],null,0]`, removed rather than set to null. `</` is written `<\/`, so the
    /// text cannot close its `<script>` element.
    private func scriptData(_ entries: [MixJournal.Entry]) -> String {
        var json = "{\"start\":{"
        json.reserveCapacity(entries.count * 64)
        var first = true
        for (substance, state) in document.startStates.sorted(by: { $0.key < $1.key }) {
            if !first { json += "," }
            first = false
            JSONEscaping.appendQuoted(substance, to: &json)
            json += ":"
            state.appendJSON(to: &json, tagged: true)
        }
        json += "},\"mixes\":["
        for (index, entry) in entries.enumerated() {
            if index > 0 { json += ",\n" }
            json += "{\"s\":\(entry.serial),\"c\":["
            for (changeIndex, change) in entry.changes.enumerated() {
                if changeIndex > 0 { json += "," }
                json += "{\"n\":"
                JSONEscaping.appendQuoted(change.substance, to: &json)
                if change.aborted { json += ",\"a\":1" }
                if let start = change.start {
                    json += ",\"r\":"
                    start.appendJSON(to: &json, tagged: true)
                }
                if let values = change.values {
                    json += ",\"v\":["
                    for (valueIndex, value) in values.enumerated() {
                        if valueIndex > 0 { json += "," }
                        json += "[["
                        for (componentIndex, component) in DottedKey.components(of: value.key).enumerated() {
                            if componentIndex > 0 { json += "," }
                            JSONEscaping.appendQuoted(component, to: &json)
                        }
                        json += "],"
                        if value.newExists {
                            value.new.appendJSON(to: &json, tagged: true)
                        } else {
                            json += "null,0"
                        }
                        json += "]"
                    }
                    json += "]"
                }
                json += "}"
            }
            json += "]}"
        }
        json += "]}"
        return Self.scriptSafe(json)
    }

    // MARK: Text

    /// `json` as the text of a `<script>` element: `</` written `<\/`, any other `<` as `\u003c`,
    /// so that neither `</script>` nor `<!--` and `<script` (which change where a script element
    /// ends) appear in it. `<` is only ever inside a JSON string, where both read back as they were.
    static func scriptSafe(_ json: String) -> String {
        guard json.utf8.contains(0x3C) else { return json }
        var safe = ""
        safe.reserveCapacity(json.utf8.count + 64)
        var scalars = json.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            guard scalar == "<" else {
                safe.unicodeScalars.append(scalar)
                continue
            }
            if pending == "/" {
                safe += "<\\/"
                pending = scalars.next()
            } else {
                safe += "\\u003c"
            }
        }
        return safe
    }

    /// Appends `text` with `&`, `<`, `>`, `"` and `'` escaped: for text and attribute values.
    private mutating func escape(_ text: String) {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 })
        else {
            html += text
            return
        }
        html += Self.escaped(text)
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Appends `count` and the noun for it.
    private mutating func count(_ count: Int, _ one: String, _ many: String) {
        html += "<b>\(count)</b> "
        html += count == 1 ? one : many
    }

    /// A duration in microseconds, with one decimal.
    static func microseconds(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let tenths = (value * 10).rounded()
        guard abs(tenths) < 1e15 else { return "\(value)" }
        let whole = Int(tenths)
        return "\(whole / 10).\(abs(whole % 10))"
    }
}
