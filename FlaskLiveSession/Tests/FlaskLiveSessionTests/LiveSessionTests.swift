import FlaskAPI
import FlaskTools
import FlyingFox
import Foundation
import Testing

@testable import FlaskLiveSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small todo list, mixed by a typed action and a named mixer.
struct TodoState: State, Equatable {
    struct Todo: Codable, Sendable, Equatable {
        var title: String
        var done = false
    }
    var todos: [Todo] = []
    var apiKey = "sk-live-secret"
    static var secretKeys: Set<String> { ["apiKey"] }
}

enum TodoMixers: SubstanceMixer { case toggle }

/// An action with a secret field.
struct RotateKey: FlaskAction, Codable {
    let key: String
    static var secretKeys: Set<String> { ["key"] }
}

struct AddTodo: FlaskAction, Codable {
    let title: String
}

func makeTodos(on bus: Flux) -> ReactiveSubstance<TodoState, TodoMixers> {
    ReactiveSubstance<TodoState, TodoMixers>(name: "todos", bus: bus) { define in
        define(AddTodo.self) { todos, action, react, _ in
            todos.prop.todos.append(.init(title: action.title))
            react()
        }
        define(mix: .toggle) { todos, payload, react, abort in
            guard let index = payload?["index"] as? Int, todos.prop.todos.indices.contains(index) else {
                return abort()
            }
            todos.prop.todos[index].done.toggle()
            react()
        }
    }
}

/// A todo list on a bus of its own, a session recording it (its todos moved by jumps), and a
/// client of the session.
func startedTodos(
    _ label: String, actions: [any (FlaskAction & Decodable).Type] = [], mixers: [any SubstanceMixer.Type] = []
) async throws -> (Flux, ReactiveSubstance<TodoState, TodoMixers>, LiveSession, Client) {
    let bus = Flux(label: label)
    let todos = makeTodos(on: bus)
    let session = try await LiveSession.start(
        buses: [bus], substances: [todos], actions: actions, mixers: mixers, printsAddress: false)
    return (bus, todos, session, Client(session: session))
}

/// Requests to a started session, over HTTP on the loopback address.
struct Client {
    let session: LiveSession

    func request(
        _ path: String, method: String = "GET", query: [String: String] = [:], token: String? = nil,
        headers: [String: String] = [:], body: String? = nil
    ) async throws -> (status: Int, text: String) {
        var components = URLComponents(string: "http://127.0.0.1:\(session.port)\(path)")!
        components.queryItems =
            [URLQueryItem(name: "token", value: token ?? session.token)]
            + query.map { URLQueryItem(name: $0.key, value: $0.value) }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}

@Suite("The live session: its page, its mixes, time travel and dispatch, over HTTP")
struct LiveSessionTests {
    @Test("the guide's call: the shared bus, the address printed, the page served")
    func documentedCall() async throws {
        let todos = makeTodos(on: .shared)
        let view = try await LiveSession.start(substances: [todos], actions: [AddTodo.self])
        // Flask live session: http://127.0.0.1:51234/?token=9f2c...
        #expect(view.buses.count == 1 && view.buses[0] === Flux.shared)
        #expect(try await Client(session: view).request("/").status == 200)
        await view.stop()
    }

    @Test("the page needs the address's token, and refuses other origins")
    func tokenAndOrigin() async throws {
        let bus = Flux(label: "live.token")
        let session = try await LiveSession.start(buses: [bus], printsAddress: false)
        let client = Client(session: session)
        #expect(session.address.hasPrefix("http://127.0.0.1:"))
        #expect(session.address.hasSuffix("?token=\(session.token)"))
        #expect(session.token.count == 32)
        let page = try await client.request("/")
        #expect(page.status == 200 && page.text.contains("Flask live session"))
        #expect(try await client.request("/", token: "").status == 403)
        #expect(try await client.request("/", token: String(repeating: "0", count: 32)).status == 403)
        #expect(try await client.request("/api/entries", token: "").status == 403)
        let foreign = try await client.request("/api/entries", headers: ["Origin": "http://evil.example"])
        #expect(foreign.status == 403)
        let travel = try await client.request(
            "/api/travel", method: "POST", query: ["to": "1"], headers: ["Origin": "http://evil.example"])
        #expect(travel.status == 403, "no other site moves the app")
        #expect(
            try await client.request("/api/entries", headers: ["Origin": "http://127.0.0.1:\(session.port)"]).status
                == 200)
        await session.stop()
    }

    @Test("a request for another host (a name pointed at the loopback address) is refused")
    func otherHost() async throws {
        let bus = Flux(label: "live.host")
        let session = try await LiveSession.start(buses: [bus], printsAddress: false)
        let request = HTTPRequest(
            method: .GET, version: .http11, path: "/api/entries",
            query: [.init(name: "token", value: session.token)], headers: [.host: "evil.example:\(session.port)"],
            body: Data())
        #expect(await session.respond(to: request).statusCode == .forbidden)
        await session.stop()
    }

    @Test("mixes appear as they happen, newer than what the page has; secrets are redacted")
    func entries() async throws {
        let (bus, _, session, client) = try await startedTodos("live.entries")
        for title in ["milk", "bread"] { await bus.apply(AddTodo(title: title)) }
        await bus.apply(TodoMixers.toggle, payload: ["index": 0])
        let all = try JSONDecoder().decode(Reply.self, from: Data(try await client.request("/api/entries").text.utf8))
        #expect(all.entries.map(\.serial).count == 3)
        let second = all.entries[1].serial
        let newer = try await client.request("/api/entries", query: ["after": "\(second)"])
        #expect(try JSONDecoder().decode(Reply.self, from: Data(newer.text.utf8)).entries.count == 1)
        let states = try await client.request("/api/states", query: ["after": "\(second)"])
        #expect(states.text.contains("bread") && !states.text.contains("sk-live-secret"), "\(states.text)")
        let export = try await client.request("/api/export")
        #expect(export.text == session.journals[0].jsonLines() && export.text.hasSuffix("\n"))
        #expect(!export.text.contains("sk-live-secret"))
        await session.stop()
    }

    @Test("the page loads the newest mixes first, then earlier ones by chunks: before and newest")
    func pages() async throws {
        let (bus, _, session, client) = try await startedTodos("live.pages")
        for index in 0..<10 { await bus.apply(AddTodo(title: "t\(index)")) }
        let serials = session.journals[0].entries.map(\.serial)
        func page(_ query: [String: String]) async throws -> [UInt64] {
            try JSONDecoder().decode(
                Reply.self, from: Data(try await client.request("/api/entries", query: query).text.utf8)
            )
            .entries.map(\.serial)
        }
        #expect(try await page(["newest": "3"]) == Array(serials.suffix(3)))
        #expect(try await page(["before": "\(serials[7])", "newest": "4"]) == Array(serials[3..<7]))
        #expect(try await page(["before": "\(serials[2])", "newest": "4"]) == Array(serials[0..<2]))
        #expect(try await page(["before": "\(serials[0])"]) == [])
        #expect(try await page(["after": "\(serials[1])", "before": "\(serials[4])"]) == Array(serials[2..<4]))
        #expect(try await client.request("/api/entries", query: ["newest": "x"]).status == 400)
        await session.stop()
    }

    @Test("an imported session is browsed with its states, rebuilt as flask-journal rebuilds them")
    func importedStates() async throws {
        let (bus, _, session, client) = try await startedTodos("live.import")
        for title in ["milk", "bread"] { await bus.apply(AddTodo(title: title)) }
        let exported = try await client.request("/api/export").text
        let second = try #require(session.journals[0].entries.last?.serial)
        // The app moves on; the file is what it was.
        await bus.apply(AddTodo(title: "eggs"))
        #expect(try await client.request("/api/states", query: ["after": "1", "imported": "1"]).status == 400)
        let imported = try await client.request("/api/import", method: "POST", body: exported)
        #expect(imported.status == 200)
        #expect(try JSONDecoder().decode(Reply.self, from: Data(imported.text.utf8)).entries.count == 2)
        let states = try await client.request("/api/states", query: ["after": "\(second)", "imported": "1"])
        #expect(states.text.contains("bread") && !states.text.contains("eggs"), "\(states.text)")
        let expected = try MixJournal.Document(jsonLines: exported).states(afterKept: second)
        #expect(try JSONDecoder().decode([String: JournalValue].self, from: Data(states.text.utf8)) == expected)
        // The live journal's states stay its own.
        let third = try #require(session.journals[0].entries.last?.serial)
        #expect(try await client.request("/api/states", query: ["after": "\(third)"]).text.contains("eggs"))
        #expect(try await client.request("/api/states", query: ["after": "\(third)", "imported": "1"]).status == 400)
        let refused = try await client.request("/api/import", method: "POST", body: "not json\n")
        #expect(refused.status == 400, "\(refused.text)")
        await session.stop()
    }

    @Test("a jump sets the app's state after the mix, as a commit the journal records; present returns")
    func travel() async throws {
        let (bus, todos, session, client) = try await startedTodos("live.travel")
        for title in ["milk", "bread", "eggs"] { await bus.apply(AddTodo(title: title)) }
        let present = todos.state
        let first = try #require(session.journals[0].entries.first?.serial)
        let jump = try await client.request("/api/travel", method: "POST", query: ["to": "\(first)"])
        #expect(jump.status == 200 && jump.text.contains("todos"), "\(jump.text)")
        #expect(todos.state.todos.map(\.title) == ["milk"])
        #expect(todos.state.apiKey == "sk-live-secret", "a secret keeps the app's own value")
        #expect(session.journals[0].entries.last?.mixer == "travel")
        let status = try await client.request("/api/entries", query: ["after": "999999"])
        #expect(status.text.contains(#""travelledTo":\#(first)"#), "\(status.text)")
        _ = try await client.request("/api/present", method: "POST")
        #expect(todos.state == present, "back to the last mix the app made")
        // A new mix in the past branches from there.
        _ = try await client.request("/api/travel", method: "POST", query: ["to": "\(first)"])
        await bus.apply(AddTodo(title: "tea"))
        #expect(todos.state.todos.map(\.title) == ["milk", "tea"])
        _ = try await client.request("/api/present", method: "POST")
        #expect(todos.state.todos.map(\.title) == ["milk", "tea"], "the present is now the branch's last mix")
        await session.stop()
    }

    @Test("a jump to a mix not kept moves nothing and says so; 0 is before the first mix; bad serials are refused")
    func travelEdges() async throws {
        let (bus, todos, session, client) = try await startedTodos("live.edges")
        for title in ["milk", "bread"] { await bus.apply(AddTodo(title: title)) }
        let missing = try await client.request("/api/travel", method: "POST", query: ["to": "999"])
        #expect(missing.status == 409 && missing.text.contains("keeps no mix #999"), "\(missing.text)")
        #expect(todos.state.todos.count == 2)
        #expect(session.lanes[0].travelledTo.withLock { $0 } == nil, "not in the past: nothing moved")
        let start = try await client.request("/api/states", query: ["after": "0"])
        #expect(start.text.contains(#""todos":[]"#), "\(start.text)")
        let before = try await client.request("/api/travel", method: "POST", query: ["to": "0"])
        #expect(before.status == 200)
        #expect(todos.state.todos.isEmpty, "before the first mix")
        #expect(try await client.request("/api/entries", query: ["after": "abc"]).status == 400)
        #expect(try await client.request("/api/states", query: ["after": "-1"]).status == 400)
        #expect(try await client.request("/api/states", query: ["after": "999"]).status == 400)
        await session.stop()
    }

    @Test("Again refuses a mix whose action has secret fields: the journal redacted them")
    func againRefusesSecrets() async throws {
        let bus = Flux(label: "live.again-secret")
        let vault = ReactiveSubstance<TodoState, TodoMixers>(name: "vault", bus: bus) { define in
            define(RotateKey.self) { vault, action, react, _ in
                vault.prop.apiKey = action.key
                react()
            }
        }
        let session = try await LiveSession.start(
            buses: [bus], substances: [vault], actions: [RotateKey.self], printsAddress: false)
        await bus.apply(RotateKey(key: "sk-new-secret"))
        let serial = try #require(session.journals[0].entries.first?.serial)
        let again = try await Client(session: session).request(
            "/api/again", method: "POST", query: ["serial": "\(serial)"])
        #expect(again.status == 400 && again.text.contains("secret"), "\(again.text)")
        await session.stop()
    }

    @Test("two buses in one view: each its own mixes, states, jumps and dispatches, chosen by bus=K")
    func twoBuses() async throws {
        let main = Flux(label: "live.main")
        let network = Flux(label: "live.network")
        let todos = makeTodos(on: main)
        let inbox = ReactiveSubstance<TodoState, TodoMixers>(name: "inbox", bus: network) { define in
            define(AddTodo.self) { inbox, action, react, _ in
                inbox.prop.todos.append(.init(title: action.title))
                react()
            }
        }
        let session = try await LiveSession.start(
            buses: [main, network, main], substances: [todos, inbox], actions: [AddTodo.self], printsAddress: false)
        let client = Client(session: session)
        #expect(session.buses.count == 2 && session.buses[1] === network, "a bus given twice is recorded once")
        #expect(try await client.request("/api/buses").text == #"["live.main","live.network"]"#)
        for title in ["milk", "bread"] { await main.apply(AddTodo(title: title)) }
        await network.apply(AddTodo(title: "mail"))
        func serials(_ bus: String) async throws -> [UInt64] {
            try JSONDecoder().decode(
                Reply.self, from: Data(try await client.request("/api/entries", query: ["bus": bus]).text.utf8)
            ).entries.map(\.serial)
        }
        #expect(try await serials("0") == session.journals[0].entries.map(\.serial))
        #expect(try await serials("1") == session.journals[1].entries.map(\.serial))
        #expect(try await serials("0").count == 2)
        #expect(try await serials("1").count == 1)
        #expect(try await client.request("/api/entries", query: ["bus": "2"]).status == 400)
        // A jump on the network bus moves its substances alone.
        let jump = try await client.request("/api/travel", method: "POST", query: ["bus": "1", "to": "0"])
        #expect(jump.status == 200, "\(jump.text)")
        #expect(inbox.state.todos.isEmpty && todos.state.todos.count == 2)
        let status = try await client.request("/api/entries", query: ["bus": "1", "after": "999"])
        #expect(status.text.contains(#""travelledTo":0"#))
        #expect(!(try await client.request("/api/entries", query: ["after": "999"]).text.contains("travelledTo\":0")))
        // A dispatch from the page goes to the bus shown.
        _ = try await client.request(
            "/api/dispatch", method: "POST", query: ["bus": "1", "action": "AddTodo"], body: #"{"title":"news"}"#)
        await network.flush()
        #expect(inbox.state.todos.map(\.title) == ["news"] && todos.state.todos.count == 2)
        // From code: the bus named.
        await session.returnToPresent(on: network)
        #expect(inbox.state.todos.map(\.title) == ["news"], "the present is the bus's last mix")
        await session.travel(to: try #require(session.journals[0].entries.first?.serial), on: main)
        #expect(todos.state.todos.map(\.title) == ["milk"])
        await session.stop()
    }

    @Test("a substance on a bus the view does not record, and no bus at all, are refused at start")
    func startRefusals() async throws {
        let recorded = Flux(label: "live.recorded")
        let other = makeTodos(on: Flux(label: "live.other"))
        await #expect(throws: LiveSessionError.substanceOnAnotherBus("todos")) {
            try await LiveSession.start(buses: [recorded], substances: [other], printsAddress: false)
        }
        await #expect(throws: LiveSessionError.noBus) {
            try await LiveSession.start(buses: [], printsAddress: false)
        }
    }

    @Test("another interface is told: requests must name it (or, for 0.0.0.0, an IPv4 address), never a name")
    func otherInterface() async throws {
        func status(_ session: LiveSession, host: String, origin: String? = nil) async -> HTTPStatusCode {
            var headers: [HTTPHeader: String] = [.host: host]
            if let origin { headers[HTTPHeader("Origin")] = origin }
            let request = HTTPRequest(
                method: .GET, version: .http11, path: "/api/actions",
                query: [.init(name: "token", value: session.token)], headers: headers, body: Data())
            return await session.respond(to: request).statusCode
        }
        let loopback = try await LiveSession.start(buses: [Flux(label: "live.loopback")], printsAddress: false)
        #expect(await status(loopback, host: "192.168.1.5:\(loopback.port)") == .forbidden)
        await loopback.stop()
        let every = try await LiveSession.start(
            buses: [Flux(label: "live.every")], interface: "0.0.0.0", printsAddress: false)
        let port = every.port
        #expect(every.address.hasPrefix("http://127.0.0.1:\(port)/?token="))
        #expect(try await Client(session: every).request("/api/actions").status == 200)
        #expect(await status(every, host: "192.168.1.5:\(port)") == .ok)
        #expect(await status(every, host: "192.168.1.5:\(port)", origin: "http://192.168.1.5:\(port)") == .ok)
        #expect(await status(every, host: "evil.example:\(port)") == .forbidden, "a name is never served")
        #expect(await status(every, host: "192.168.1.500:\(port)") == .forbidden)
        #expect(await status(every, host: "192.168.1.5:\(port)", origin: "http://evil.example:\(port)") == .forbidden)
        #expect(await status(every, host: "192.168.1.5:1") == .forbidden, "another port")
        // The origin is the host this request names, not another this server answers to.
        #expect(await status(every, host: "192.168.1.5:\(port)", origin: "http://127.0.0.1:\(port)") == .forbidden)
        #expect(await status(every, host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)") == .ok)
        await every.stop()
    }

    @Test(
        "what an outside try found: present in the present, the present named, imports and their states, fetch metadata"
    )
    func outsideFindings() async throws {
        let (bus, _, session, client) = try await startedTodos("live.outside")
        for title in ["milk", "bread"] { await bus.apply(AddTodo(title: title)) }
        let kept = session.journals[0].entries.count
        // The present, written as null; Present there moves nothing and records nothing.
        #expect(try await client.request("/api/entries", query: ["after": "999"]).text.contains(#""travelledTo":null"#))
        let present = try await client.request("/api/present", method: "POST")
        #expect(present.status == 200 && present.text.contains(#""moved":[]"#), "\(present.text)")
        #expect(session.journals[0].entries.count == kept)
        // A jump to the last mix the app made is the present.
        let last = try #require(session.journals[0].entries.last?.serial)
        _ = try await client.request("/api/travel", method: "POST", query: ["to": "\(last)"])
        #expect(session.lanes[0].travelledTo.withLock { $0 } == nil)
        // A journal's own states, before it recorded any value, are empty (no file was asked for):
        // `imported=0` is the live journal.
        let (quietBus, quiet, quietSession, quietClient) = try await startedTodos("live.quiet")
        await quietBus.apply(TodoMixers.toggle, payload: ["index": 5])  // aborts: nothing recorded
        #expect(quiet.state.todos.isEmpty)
        let aborted = try #require(quietSession.journals[0].entries.last?.serial)
        let quietStates = try await quietClient.request(
            "/api/states", query: ["after": "\(aborted)", "imported": "0"])
        #expect(quietStates.status == 200, "\(quietStates.text)")
        await quietSession.stop()
        // Imports: an empty body is no journal; a file without its first line has no states to give.
        #expect(try await client.request("/api/import", method: "POST", body: "").status == 400)
        let lines = session.journals[0].jsonLines().split(separator: "\n").dropFirst().joined(separator: "\n")
        #expect(try await client.request("/api/import", method: "POST", body: lines).status == 200)
        let states = try await client.request("/api/states", query: ["after": "\(last)", "imported": "1"])
        #expect(states.status == 400 && states.text.contains("no starting states"), "\(states.text)")
        // A request a browser names cross-site is refused, with or without an Origin.
        let crossSite = try await client.request("/api/entries", headers: ["Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == 403)
        #expect(try await client.request("/api/entries", headers: ["Sec-Fetch-Site": "same-origin"]).status == 200)
        // The export is named for its bus.
        let export = await session.respond(
            to: HTTPRequest(
                method: .GET, version: .http11, path: "/api/export",
                query: [.init(name: "token", value: session.token)], headers: [.host: "127.0.0.1:\(session.port)"],
                body: Data()))
        #expect(export.headers[.contentDisposition] == #"attachment; filename="flask-session-live.outside.jsonl""#)
        await session.stop()
        // An interface that is not an IPv4 address is refused at once, saying so; a leading zero
        // (octal to a browser) too.
        await #expect(throws: LiveSessionError.notAnIPv4Address("localhost")) {
            try await LiveSession.start(buses: [Flux(label: "live.name")], interface: "localhost", printsAddress: false)
        }
        await #expect(throws: LiveSessionError.notAnIPv4Address("010.0.0.1")) {
            try await LiveSession.start(
                buses: [Flux(label: "live.octal")], interface: "010.0.0.1", printsAddress: false)
        }
    }

    @Test("an address this machine does not have fails with the socket's error, not the wait's timeout")
    func missingAddress() async {
        do {
            // 192.0.2.0/24 is TEST-NET-1: documentation only, on no machine.
            let session = try await LiveSession.start(
                buses: [Flux(label: "live.missing")], interface: "192.0.2.77", printsAddress: false)
            Issue.record("it listened on \(session.address)")
            await session.stop()
        } catch {
            #expect(!"\(error)".lowercased().contains("timed out"), "\(error)")
        }
    }

    @Test("the page runs the script it was served with alone: a nonce per answer in its CSP")
    func pageNonce() async throws {
        let session = try await LiveSession.start(buses: [Flux(label: "live.nonce")], printsAddress: false)
        func page() async -> HTTPResponse {
            await session.respond(
                to: HTTPRequest(
                    method: .GET, version: .http11, path: "/", query: [.init(name: "token", value: session.token)],
                    headers: [.host: "127.0.0.1:\(session.port)"], body: Data()))
        }
        let (first, second) = (await page(), await page())
        let policy = try #require(first.headers[HTTPHeader("Content-Security-Policy")])
        #expect(!policy.contains("unsafe-inline"), "\(policy)")
        let nonce = try #require(policy.split(separator: "'").first { $0.hasPrefix("nonce-") }?.dropFirst(6))
        let html = String(decoding: try await first.bodyData, as: UTF8.self)
        #expect(html.contains(#"<script nonce="\#(nonce)">"#) && html.contains(#"<style nonce="\#(nonce)">"#))
        #expect(second.headers[HTTPHeader("Content-Security-Policy")] != policy, "a nonce per answer")
        await session.stop()
    }

    @Test("a host name in capitals is the same host")
    func hostCase() async throws {
        let bus = Flux(label: "live.host-case")
        let session = try await LiveSession.start(buses: [bus], printsAddress: false)
        let request = HTTPRequest(
            method: .GET, version: .http11, path: "/api/actions", query: [.init(name: "token", value: session.token)],
            headers: [.host: "LOCALHOST:\(session.port)"], body: Data())
        #expect(await session.respond(to: request).statusCode == .ok)
        await session.stop()
    }

    @Test(
        "the page's WebSocket says when there are new mixes, with the newest serial, and ends with the page's",
        .timeLimit(.minutes(1)))
    func signal() async throws {
        // The handler itself: Linux's URLSession has no WebSocket client (libcurl's lacks it);
        // the browser test opens the real socket.
        let bus = Flux(label: "live.signal")
        _ = makeTodos(on: bus)
        let journal = MixJournal()
        bus.use(journal)
        let (client, page) = AsyncStream<WSMessage>.makeStream()
        let messages = try await LiveSignal(journal: journal).makeMessages(for: client)
        var iterator = messages.makeAsyncIterator()
        await bus.apply(AddTodo(title: "milk"))
        let serial = try #require(journal.newestSerial)
        #expect(await iterator.next() == .text("\(serial)"))
        await bus.apply(AddTodo(title: "bread"))
        await bus.apply(AddTodo(title: "eggs"))
        let newest = try #require(journal.newestSerial)
        // A burst is told once, as its newest mix (or twice, if the watch looked between them).
        var told = await iterator.next()
        if told != .text("\(newest)") { told = await iterator.next() }
        #expect(told == .text("\(newest)"))
        page.finish()
        #expect(await iterator.next() == nil, "the page closed the socket: the messages end")
    }

    @Test("the page dispatches the typed actions it was given, from their JSON")
    func dispatch() async throws {
        let (bus, todos, session, client) = try await startedTodos("live.dispatch", actions: [AddTodo.self])
        #expect(try await client.request("/api/actions").text == #"["AddTodo"]"#)
        let sent = try await client.request(
            "/api/dispatch", method: "POST", query: ["action": "AddTodo"], body: #"{"title":"from the page"}"#)
        #expect(sent.status == 200, "\(sent.text)")
        await bus.flush()
        #expect(todos.state.todos.map(\.title) == ["from the page"])
        let wrong = try await client.request("/api/dispatch", method: "POST", query: ["action": "AddTodo"], body: "{}")
        #expect(wrong.status == 400)
        let unknown = try await client.request(
            "/api/dispatch", method: "POST", query: ["action": "DeleteAll"], body: "{}")
        #expect(unknown.status == 400)
        await session.stop()
    }

    @Test("a recorded mix, mixer or action, is dispatched again; a jump is not")
    func again() async throws {
        let (bus, todos, session, client) = try await startedTodos(
            "live.again", actions: [AddTodo.self], mixers: [TodoMixers.self])
        await bus.apply(AddTodo(title: "milk"))
        await bus.apply(TodoMixers.toggle, payload: ["index": 0])
        let serials = session.journals[0].entries.map(\.serial)
        let action = try await client.request("/api/again", method: "POST", query: ["serial": "\(serials[0])"])
        #expect(action.status == 200, "\(action.text)")
        await bus.flush()
        #expect(todos.state.todos.map(\.title) == ["milk", "milk"])
        let mixer = try await client.request("/api/again", method: "POST", query: ["serial": "\(serials[1])"])
        #expect(mixer.status == 200, "\(mixer.text)")
        await bus.flush()
        #expect(todos.state.todos.map(\.done) == [false, false], "the first todo toggled back")
        await session.travel(to: serials[0])
        let travel = try #require(session.journals[0].entries.last?.serial)
        let refused = try await client.request("/api/again", method: "POST", query: ["serial": "\(travel)"])
        #expect(refused.status == 400 && refused.text.contains("a task is not dispatched again"), "\(refused.text)")
        let gone = try await client.request("/api/again", method: "POST", query: ["serial": "999"])
        #expect(gone.status == 400 && gone.text.contains("keeps no mix"))
        await session.stop()
    }

    @Test("pause stops recording until resume")
    func pause() async throws {
        let (bus, _, session, client) = try await startedTodos("live.pause")
        await bus.apply(AddTodo(title: "one"))
        _ = try await client.request("/api/pause", method: "POST")
        await bus.apply(AddTodo(title: "unseen"))
        _ = try await client.request("/api/resume", method: "POST")
        await bus.apply(AddTodo(title: "three"))
        #expect(session.journals[0].entries.count == 2)
        await session.stop()
    }
}

/// The part of `/api/entries` the tests read.
private struct Reply: Decodable {
    struct Entry: Decodable { let serial: UInt64 }
    let entries: [Entry]
}
