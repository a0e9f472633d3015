import FlaskTools
import FluxBus
import FlyingFox
import Foundation
import Substances

/// The page's requests: every one carries the token, names this server as its host, and comes
/// from no other origin; then it is routed by its path.
extension LiveSession {
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let refusal = refusal(of: request) { return refusal }
        // The bus the page shows: `bus=K`, an index into `buses` (the first when absent).
        guard let index = Self.serial(request.query["bus"], absent: 0), index < lanes.count else {
            return Self.text(.badRequest, "bus: the index of a bus the session records (0 to \(lanes.count - 1))")
        }
        let lane = lanes[Int(index)]
        let post = request.method == .POST
        switch (post, request.path) {
        case (false, "/"):
            return page()
        case (false, "/api/entries"):
            guard let after = Self.serial(request.query["after"], absent: 0),
                let before = Self.serial(request.query["before"], absent: .max),
                let newest = Self.serial(request.query["newest"], absent: .max)
            else {
                return Self.text(.badRequest, "after, before, newest: numbers")
            }
            return Self.json(entriesResponse(lane, after: after, before: before, newest: newest))
        case (false, "/api/states"):
            guard let serial = Self.serial(request.query["after"], absent: nil) else {
                return Self.text(.badRequest, "after: a mix's serial")
            }
            // A file the page imported, or the session's own journal.
            let document: MixJournal.Document
            let isImported = request.query["imported"] == "1"
            if isImported {
                guard let imported = imported.withLock({ $0 }) else {
                    return Self.text(.badRequest, "no file was imported")
                }
                document = imported
            } else {
                document = lane.journal.document
            }
            // A file that records no starting state: no state can be rebuilt from it (a journal's
            // own, before any value was recorded, answers its empty states).
            if isImported && document.startStates.isEmpty && !document.entries.isEmpty {
                return Self.text(
                    .badRequest,
                    "the file records no starting states (its first line, flaskJournal, is missing, or the journal "
                        + "recorded no values): its states cannot be rebuilt")
            }
            // 0: before the first mix kept.
            guard let states = document.states(afterKept: serial) else {
                return Self.text(.badRequest, "the journal keeps no mix #\(serial)")
            }
            return Self.json(states)
        case (true, "/api/import"):
            // A session exported before (journal JSON lines), to browse: its entries, and its
            // states on request (`/api/states?imported=1`).
            do {
                let text = String(decoding: try await request.bodyData, as: UTF8.self)
                guard text.contains(where: { !$0.isWhitespace }) else {
                    return Self.text(.badRequest, "an empty file is not a journal's JSON lines")
                }
                let document = try MixJournal.Document(jsonLines: text)
                imported.withLock { $0 = document }
                return Self.json(ImportReply(entries: document.entries))
            } catch {
                return Self.text(.badRequest, "not a journal's JSON lines: \(error)")
            }
        case (false, "/api/export"):
            var response = Self.text(.ok, lane.journal.jsonLines())  // each line ends with its `\n`
            response.headers[.contentType] = "application/x-ndjson; charset=utf-8"
            response.headers[.contentDisposition] = "attachment; filename=\"\(Self.exportName(of: lane.bus))\""
            return response
        case (false, "/api/live"):
            // A WebSocket that says when there are new mixes (LiveSignal).
            do {
                return try await WebSocketHTTPHandler(
                    handler: MessageFrameWSHandler(handler: LiveSignal(journal: lane.journal))
                )
                .handleRequest(request)
            } catch {
                return Self.text(.badRequest, "a WebSocket handshake was expected: \(error)")
            }
        case (false, "/api/buses"):
            return Self.json(lanes.map(\.bus.label))
        case (false, "/api/actions"):
            return Self.json(actions.keys.sorted())
        case (true, "/api/travel"):
            guard let serial = Self.serial(request.query["to"], absent: nil) else {
                return Self.text(.badRequest, "to: a mix's serial")
            }
            let travel = await lane.travel(to: serial, fileID: Self.page, line: 0, function: "Jump")
            return Self.json(TravelReply(travel), status: travel.moved.isEmpty ? .conflict : .ok)
        case (true, "/api/present"):
            return Self.json(
                TravelReply(await lane.returnToPresent(fileID: Self.page, line: 0, function: "Present")))
        case (true, "/api/pause"):
            pause()
            return Self.text(.ok, "paused")
        case (true, "/api/resume"):
            resume()
            return Self.text(.ok, "recording")
        case (true, "/api/again"):
            guard let serial = Self.serial(request.query["serial"], absent: nil) else {
                return Self.text(.badRequest, "serial: a mix's serial")
            }
            if let reason = await lane.dispatchAgain(serial, domains: domains) { return Self.text(.badRequest, reason) }
            return Self.text(.ok, "dispatched mix #\(serial) again")
        case (true, "/api/dispatch"):
            guard let name = request.query["action"], let action = actions[name] else {
                return Self.text(.badRequest, "no such action: register its type with LiveSession.start(actions:)")
            }
            do {
                let body = try await request.bodyData
                try action.dispatch(body.isEmpty ? Data("{}".utf8) : body, lane.bus)
                return Self.text(.ok, "dispatched \(name)")
            } catch {
                return Self.text(.badRequest, "\(name) does not decode from that JSON: \(error)")
            }
        default:
            return Self.text(.notFound, "not found")
        }
    }

    /// Why `request` is refused, if it is: without the token; for another host (a page of another
    /// site whose name was pointed at this address); from another origin (a page of another site
    /// in the same browser).
    private func refusal(of request: HTTPRequest) -> HTTPResponse? {
        guard Self.sameBytes(request.query["token"] ?? "", token) else {
            return Self.text(.forbidden, "the address's token is missing or wrong")
        }
        // Host names are case-insensitive.
        guard let host = request.headers[.host].map({ Self.withPort($0.lowercased(), port) }), isServed(host) else {
            return Self.text(.forbidden, "not a request for this server")
        }
        // A browser that names the request cross-site (fetch metadata), even without an Origin.
        if request.headers[HTTPHeader("Sec-Fetch-Site")]?.lowercased() == "cross-site" {
            return Self.text(.forbidden, "requests from another site are refused")
        }
        // The page's own origin: the host this request names, not another this server answers
        // to (another server on that port of another address is another origin).
        if let origin = request.headers[HTTPHeader("Origin")]?.lowercased(),
            !(origin.hasPrefix("http://")
                && Self.withPort(String(origin.dropFirst("http://".count)), port) == host)
        {
            return Self.text(.forbidden, "requests from another origin are refused")
        }
        return nil
    }

    /// `host` with its port written: a browser leaves out port 80.
    private static func withPort(_ host: String, _ port: UInt16) -> String {
        port == 80 && !host.hasSuffix(":80") ? host + ":80" : host
    }

    /// Whether `host` (`name:port`) names this server: the loopback address or `localhost`, the
    /// interface listened on, and for `0.0.0.0` any IPv4 address; never another name, which a
    /// site could point at this address.
    private func isServed(_ host: String) -> Bool {
        guard host.hasSuffix(":\(port)") else { return false }
        let name = host.dropLast(":\(port)".count)
        if name == "127.0.0.1" || name == "localhost" || name == interface { return true }
        return interface == "0.0.0.0" && Self.isIPv4(name)
    }

    /// The name of a bus's export: `flask-session-<label>.jsonl`, the label's letters, digits,
    /// dots and dashes kept, anything else a dash.
    static func exportName(of bus: Flux) -> String {
        let label = bus.label.map { character -> Character in
            character.isASCII && (character.isLetter || character.isNumber || character == "." || character == "-")
                ? character : "-"
        }
        return "flask-session-\(String(label)).jsonl"
    }

    /// Four numbers from 0 to 255, with dots between.
    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                // No leading zero: `010` is octal to a browser, and refused by the socket layer.
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                    && Int(part).map { $0 <= 255 } == true && (part.count == 1 || part.first != "0")
            }
    }

    /// Compared in time that does not depend on where they differ.
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The entries kept with serials between `after` and `before` (both excluded), the `newest`
    /// of them: the page loads the newest mixes first, then earlier ones a chunk at a time, so
    /// that it is usable at once with 100,000 mixes kept.
    private func entriesResponse(_ lane: LiveBus, after: UInt64, before: UInt64, newest: UInt64) -> EntriesReply {
        let journal = lane.journal
        return EntriesReply(
            entries: journal.entries(after: after, before: before, newest: Int(clamping: newest)),
            dropped: journal.droppedCount, capacity: journal.capacity, paused: paused.withLock { $0 },
            travelledTo: lane.travelledTo.withLock { $0 })
    }

    /// A mix's serial given in a query: `absent` when it is not given, nil when it is not a serial.
    private static func serial(_ text: String?, absent: UInt64?) -> UInt64? {
        guard let text else { return absent }
        return UInt64(text)
    }

    private static func json(_ value: some Encodable, status: HTTPStatusCode = .ok) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return text(.internalServerError, "not encodable") }
        return HTTPResponse(
            statusCode: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"], body: data)
    }

    private static func text(_ status: HTTPStatusCode, _ text: String) -> HTTPResponse {
        HTTPResponse(
            statusCode: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: Data(text.utf8))
    }

    /// The page, its script and style marked with a nonce made for this answer: the
    /// Content-Security-Policy runs those and nothing else (no script written into the page later
    /// would run), and the page is never framed by another site.
    private func page() -> HTTPResponse {
        let nonce = Self.makeToken()
        let text = LiveSessionPage.html.replacingOccurrences(of: "<script>", with: "<script nonce=\"\(nonce)\">")
            .replacingOccurrences(of: "<style>", with: "<style nonce=\"\(nonce)\">")
        let sockets = Set(["127.0.0.1", "localhost", interface]).sorted().map { "ws://\($0):\(port)" }
        return HTTPResponse(
            statusCode: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                HTTPHeader("Content-Security-Policy"):
                    "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; "
                    + "connect-src 'self' \(sockets.joined(separator: " ")); frame-ancestors 'none'",
                HTTPHeader("Referrer-Policy"): "no-referrer",
            ], body: Data(text.utf8))
    }
}

/// What `/api/entries` answers.
struct EntriesReply: Encodable {
    let entries: [MixJournal.Entry]
    let dropped: Int
    let capacity: Int
    let paused: Bool
    /// Null in the present (written, not left out).
    let travelledTo: UInt64?

    enum CodingKeys: String, CodingKey { case entries, dropped, capacity, paused, travelledTo }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(dropped, forKey: .dropped)
        try container.encode(capacity, forKey: .capacity)
        try container.encode(paused, forKey: .paused)
        try container.encode(travelledTo, forKey: .travelledTo)
    }
}

/// What an import answers: the file's entries.
struct ImportReply: Encodable {
    let entries: [MixJournal.Entry]
}

/// What a jump answers.
struct TravelReply: Encodable {
    let moved: [String]
    let left: [String: String]

    init(_ travel: MixJournal.Travel?) {
        moved = travel?.moved ?? []
        left = travel?.left ?? [:]
    }
}
