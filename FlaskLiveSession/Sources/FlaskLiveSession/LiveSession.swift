import FlaskTools
import FluxBus
import FlyingFox
import FlyingSocks
import Foundation
import Substances

/// A live view of a running session, in the browser: each mix as it happens, the state of every
/// substance after any of them, and the app moved in time (jump, step back and forward, return to
/// the present). Turn it on in a debug build with one call; it prints the page's address:
///
/// ```swift
/// let view = try await LiveSession.start(substances: [todos], actions: [AddTodo.self])
/// // Flask live session: http://127.0.0.1:51234/?token=9f2c...
/// ```
///
/// It records with a `MixJournal` of its own (``journal``), installed on the bus as middleware,
/// and serves a page from a small HTTP server (FlyingFox) on the loopback address only. Every
/// request must carry the random token of the printed address, and requests from another origin
/// or for another host are refused, so that no other page in the browser can read or move the
/// app. What the page shows is what the journal records: secret keys and secret action fields
/// redacted. The bus never waits for the page or the network: the journal records on the bus, and
/// the page's requests read it, holding its lock only while they copy references to its entries.
///
/// A jump sets the substances given in `substances` to their states after the chosen mix, as a
/// task mix named `travel` that reactors receive like any other commit (so the app's views
/// follow), and that the journal records. New mixes dispatched while the app is in the past apply
/// to the state it travelled to: a new branch, which the page shows. A substance that archives its
/// state is never moved (its archive would store a past state as the app's own).
///
/// An app ships without it: add the `FlaskLiveSession` product to a debug configuration only.
public final class LiveSession: Sendable {
    /// The page's address, with its token: open it in a browser on the same machine.
    public let address: String
    /// The journal the page shows (`capacity` is the `maxAge` given).
    public let journal: MixJournal
    /// The bus the view records.
    public let bus: Flux

    let substances: [any AnySubstance]
    let actions: [String: LiveAction]
    /// The mixer enumerations and action types a recorded mix may name, to dispatch it again.
    let domains: [any Any.Type]
    let token: String
    let port: UInt16
    private let server: HTTPServer
    private let serverTask: Task<Void, any Error>
    let status = LockedValue(Status())
    /// The session the page last imported, to browse (see `/api/import`).
    let imported = LockedValue<MixJournal.Document?>(nil)

    /// What the page is told besides the mixes: whether recording is paused, and where the app
    /// travelled to.
    struct Status: Sendable {
        var paused = false
        /// The mix whose states the app was moved to, while it is in the past.
        var travelledTo: UInt64?
    }

    /// Starts recording `bus` and serving the page, and returns once the page can be opened.
    ///
    /// - Parameters:
    ///   - bus: the bus to record (the shared bus by default).
    ///   - substances: the substances a jump in time moves (by name, as the journal records them).
    ///   - actions: the typed actions the page may dispatch, decoded from the JSON it sends.
    ///   - mixers: the mixer enumerations whose recorded mixes the page may dispatch again (the
    ///     actions given are dispatched again as well).
    ///   - maxAge: the most mixes kept (older ones are dropped first), as Redux DevTools' `maxAge`.
    ///   - port: the port to listen on; 0 (the default) takes a free one.
    ///   - printsAddress: print `Flask live session: <address>` once listening (the default).
    public static func start(
        bus: Flux = .shared, substances: [any AnySubstance] = [],
        actions: [any (FlaskAction & Decodable).Type] = [], mixers: [any SubstanceMixer.Type] = [],
        maxAge: Int = 10_000, port: UInt16 = 0, printsAddress: Bool = true
    ) async throws -> LiveSession {
        let journal = MixJournal(capacity: maxAge)
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), logger: .disabled)
        let box = SessionBox()
        await server.appendRoute("*") { request in
            guard let session = box.session else { return HTTPResponse(statusCode: .serviceUnavailable) }
            return await session.respond(to: request)
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, port: let listening)? = await server.listeningAddress else {
            task.cancel()
            throw LiveSessionError.notListening
        }
        let session = LiveSession(
            bus: bus, journal: journal, substances: substances, actions: actions,
            domains: mixers.map { $0 as any Any.Type } + actions.map { $0 as any Any.Type }, port: listening,
            server: server, task: task)
        box.session = session
        bus.use(journal)
        // Written at once: `print` holds its line in a buffer when standard output is a pipe or a
        // file, where a developer (or a script waiting for the address) would not see it.
        if printsAddress { FileHandle.standardOutput.write(Data("Flask live session: \(session.address)\n".utf8)) }
        return session
    }

    private init(
        bus: Flux, journal: MixJournal, substances: [any AnySubstance], actions: [any (FlaskAction & Decodable).Type],
        domains: [any Any.Type], port: UInt16, server: HTTPServer, task: Task<Void, any Error>
    ) {
        self.domains = domains
        self.bus = bus
        self.journal = journal
        self.substances = substances
        self.actions = Dictionary(
            actions.map { LiveAction($0) }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.port = port
        self.server = server
        self.serverTask = task
        self.token = Self.makeToken()
        self.address = "http://127.0.0.1:\(port)/?token=\(token)"
    }

    /// Stops serving the page and recording.
    public func stop() async {
        bus.remove(journal)
        await server.stop(timeout: 0.2)
        serverTask.cancel()
    }

    /// Moves the app to the states after mix `serial` (an entry's `serial`; 0: before the first mix
    /// kept), as the page's jump does (recorded as
    /// dispatched from where this is called: leave `fileID`, `line` and `function` to their
    /// defaults).
    @discardableResult
    public func travel(
        to serial: UInt64, fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> MixJournal.Travel {
        let travel = await MixJournal.travel(
            journal.document, to: serial, substances: substances, on: bus, fileID: fileID, line: line,
            function: function)
        // In the past only once something moved (not for a mix the journal no longer keeps).
        if !travel.moved.isEmpty { status.withLock { $0.travelledTo = serial } }
        return travel
    }

    /// Returns the app to the present: the states after the last mix that was not a jump.
    @discardableResult
    public func returnToPresent(
        fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> MixJournal.Travel? {
        let document = journal.document
        guard let last = document.entries.last(where: { !$0.isTravel }) else { return nil }
        let travel = await MixJournal.travel(
            document, to: last.serial, substances: substances, on: bus, fileID: fileID, line: line,
            function: function)
        status.withLock { $0.travelledTo = nil }
        return travel
    }

    /// Dispatches the recorded mix `serial` again (its mixer or action, with its recorded payload
    /// or fields), as the page's "Again" does; returns why it could not, if it could not.
    public func dispatchAgain(_ serial: UInt64) async -> String? {
        guard let entry = journal.entry(serial: serial) else { return "mix #\(serial) is no longer kept" }
        return await MixJournal.dispatchAgain(
            entry, on: bus, domains: domains, fileID: Self.page, line: 0, function: "Again")?.reason
    }

    /// Stops recording (the page shows no new mixes) until ``resume()``.
    public func pause() { setPaused(true) }

    /// Records again after ``pause()``.
    public func resume() { setPaused(false) }

    /// Pauses or resumes recording: the journal leaves the bus or comes back, once.
    private func setPaused(_ paused: Bool) {
        let wasPaused = status.withLock { status in
            defer { status.paused = paused }
            return status.paused
        }
        guard wasPaused != paused else { return }
        if paused { bus.remove(journal) } else { bus.use(journal) }
    }

    /// Where the mixes the page asks for (jumps, dispatches, mixes again) say they came from.
    static let page: StaticString = "the live session page"

    /// 128 random bits, as 32 hexadecimal digits (`SystemRandomNumberGenerator` is the system's
    /// cryptographic generator).
    private static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let word = generator.next()
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}

/// Why ``LiveSession/start(bus:substances:actions:mixers:maxAge:port:printsAddress:)`` failed.
public enum LiveSessionError: Error, Sendable {
    /// The server did not report an IPv4 address it listens on.
    case notListening
}

/// The session, once made, for the server's handler (made before the session, which needs the
/// port the server took).
private final class SessionBox: Sendable {
    private let value = LockedValue<LiveSession?>(nil)
    var session: LiveSession? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// A typed action the page may dispatch: its name and how to decode and dispatch it.
struct LiveAction: Sendable {
    let name: String
    let dispatch: @Sendable (Data, Flux) throws -> Void

    init(_ type: any (FlaskAction & Decodable).Type) {
        name = "\(type)"
        dispatch = { data, bus in try Self.decodeAndDispatch(type, data, on: bus) }
    }

    private static func decodeAndDispatch<A: FlaskAction & Decodable>(_ type: A.Type, _ data: Data, on bus: Flux)
        throws
    {
        let action = try JSONDecoder().decode(A.self, from: data)
        bus.dispatch(action, fileID: LiveSession.page, line: 0, function: "Dispatch")
    }
}
