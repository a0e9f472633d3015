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
/// It records each bus given with a `MixJournal` of its own (``journals``), installed on the bus
/// as middleware, and serves a page from a small HTTP server (FlyingFox) on the loopback address
/// (another only when told: `interface:`). Every request must carry the random token of the
/// printed address, and requests from another origin or for another host are refused, so that no
/// other page in the browser can read or move the app. What the page shows is what the journal
/// records: secret keys and secret action fields redacted. The bus never waits for the page or
/// the network: the journal records on the bus, and the page's requests read it, holding its lock
/// only while they copy references to its entries.
///
/// An app with several buses gives them all (`buses: [.shared, network]`): the page shows one at a
/// time, with a menu to choose it, since each bus numbers its own mixes and runs them in its own
/// order.
///
/// A jump sets the substances given in `substances` that mix on the bus shown to their states
/// after the chosen mix, as a task mix named `travel` that reactors receive like any other commit (so the app's views
/// follow), and that the journal records. New mixes dispatched while the app is in the past apply
/// to the state it travelled to: a new branch, which the page shows. A substance that archives its
/// state is never moved (its archive would store a past state as the app's own).
///
/// An app ships without it: add the `FlaskLiveSession` product to a debug configuration only.
public final class LiveSession: Sendable {
    /// The page's address, with its token: open it in a browser on the same machine.
    public let address: String
    /// The buses the view records, in the order given (repeats left out).
    public let buses: [Flux]
    /// The journal of each bus in ``buses``, in the same order (`capacity` is the `maxAge` given).
    public let journals: [MixJournal]

    /// Each bus with its journal, its substances, and where it travelled to.
    let lanes: [LiveBus]
    let actions: [String: LiveAction]
    /// The mixer enumerations and action types a recorded mix may name, to dispatch it again.
    let domains: [any Any.Type]
    let token: String
    let port: UInt16
    /// The IPv4 address listened on (`start(interface:)`).
    let interface: String
    private let server: HTTPServer
    private let serverTask: Task<Void, any Error>
    /// Whether recording is paused, on every bus.
    let paused = LockedValue(false)
    /// The session the page last imported, to browse (see `/api/import`).
    let imported = LockedValue<MixJournal.Document?>(nil)

    /// Starts recording `buses` and serving the page, and returns once the page can be opened.
    ///
    /// - Parameters:
    ///   - buses: the buses to record (the shared bus by default).
    ///   - substances: the substances a jump in time moves (by name, as the journal records them),
    ///     each on one of `buses`.
    ///   - actions: the typed actions the page may dispatch, decoded from the JSON it sends.
    ///   - mixers: the mixer enumerations whose recorded mixes the page may dispatch again (the
    ///     actions given are dispatched again as well).
    ///   - maxAge: the most mixes kept (older ones are dropped first), as Redux DevTools' `maxAge`.
    ///   - interface: the IPv4 address to listen on: the loopback address by default, which no
    ///     other machine reaches. Another one (the machine's address on a network, to open the
    ///     page from another device; `0.0.0.0` for every address) lets other machines ask, with the
    ///     token still required; requests must then name that address as their host (for
    ///     `0.0.0.0`, any IPv4 address: never a name, which another site could point at the app).
    ///   - port: the port to listen on; 0 (the default) takes a free one.
    ///   - printsAddress: print `Flask live session: <address>` once listening (the default).
    /// - Throws: ``LiveSessionError/noBus`` for an empty `buses`;
    ///   ``LiveSessionError/substanceOnAnotherBus(_:)`` for a substance that mixes on none of them
    ///   (a jump could not move it); ``LiveSessionError/notListening`` when the server reports no
    ///   address; the server's error when it cannot listen (a port in use).
    public static func start(
        buses: [Flux] = [.shared], substances: [any AnySubstance] = [],
        actions: [any (FlaskAction & Decodable).Type] = [], mixers: [any SubstanceMixer.Type] = [],
        maxAge: Int = 10_000, interface: String = "127.0.0.1", port: UInt16 = 0, printsAddress: Bool = true
    ) async throws -> LiveSession {
        var distinct: [Flux] = []
        for bus in buses where !distinct.contains(where: { $0 === bus }) { distinct.append(bus) }
        guard !distinct.isEmpty else { throw LiveSessionError.noBus }
        if let stray = substances.first(where: { substance in !distinct.contains { $0 === substance.bus } }) {
            throw LiveSessionError.substanceOnAnotherBus(stray.name())
        }
        let lanes = distinct.map { bus in
            LiveBus(
                bus: bus, journal: MixJournal(capacity: maxAge), substances: substances.filter { $0.bus === bus })
        }
        // A name or an IPv6 address would fail deep in the socket layer, saying "Success".
        guard LiveSession.isIPv4(interface[...]) else { throw LiveSessionError.notAnIPv4Address(interface) }
        let server = HTTPServer(address: try .inet(ip4: interface, port: port), logger: .disabled)
        let box = SessionBox()
        await server.appendRoute("*") { request in
            guard let session = box.session else { return HTTPResponse(statusCode: .serviceUnavailable) }
            return await session.respond(to: request)
        }
        let task = Task { try await server.run() }
        do {
            try await server.waitUntilListening()
        } catch {
            // The server's own error says why (an address this machine does not have, a port in
            // use) where the wait says only that it timed out.
            task.cancel()
            if case .failure(let failure) = await task.result { throw failure }
            throw error
        }
        guard case .ip4(_, port: let listening)? = await server.listeningAddress else {
            task.cancel()
            throw LiveSessionError.notListening
        }
        let session = LiveSession(
            lanes: lanes, actions: actions,
            domains: mixers.map { $0 as any Any.Type } + actions.map { $0 as any Any.Type }, interface: interface,
            port: listening, server: server, task: task)
        box.session = session
        for lane in lanes { lane.bus.use(lane.journal) }
        // Written at once: `print` holds its line in a buffer when standard output is a pipe or a
        // file, where a developer (or a script waiting for the address) would not see it.
        if printsAddress { FileHandle.standardOutput.write(Data("Flask live session: \(session.address)\n".utf8)) }
        return session
    }

    private init(
        lanes: [LiveBus], actions: [any (FlaskAction & Decodable).Type], domains: [any Any.Type], interface: String,
        port: UInt16, server: HTTPServer, task: Task<Void, any Error>
    ) {
        self.domains = domains
        self.lanes = lanes
        self.buses = lanes.map(\.bus)
        self.journals = lanes.map(\.journal)
        self.actions = Dictionary(
            actions.map { LiveAction($0) }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.port = port
        self.interface = interface
        self.server = server
        self.serverTask = task
        self.token = Self.makeToken()
        // Every address: the page is opened on this machine's loopback address.
        let shown = interface == "0.0.0.0" ? "127.0.0.1" : interface
        self.address = "http://\(shown):\(port)/?token=\(token)"
    }

    /// Stops serving the page and recording.
    public func stop() async {
        for lane in lanes { lane.bus.remove(lane.journal) }
        await server.stop(timeout: 0.2)
        serverTask.cancel()
    }

    /// Moves the substances of `bus` (one of ``buses``, the first by default; another bus is a
    /// programming error) to their states after its mix `serial` (an entry's `serial`; 0: before
    /// the first mix kept), as the page's jump does (recorded as dispatched from where this is
    /// called: leave `fileID`, `line` and `function` to their defaults).
    @discardableResult
    public func travel(
        to serial: UInt64, on bus: Flux? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        function: StaticString = #function
    ) async -> MixJournal.Travel {
        await lane(of: bus).travel(to: serial, fileID: fileID, line: line, function: function)
    }

    /// Returns the substances of `bus` (one of ``buses``, the first by default) to the present:
    /// their states after its last mix that was not a jump.
    @discardableResult
    public func returnToPresent(
        on bus: Flux? = nil, fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) async -> MixJournal.Travel? {
        await lane(of: bus).returnToPresent(fileID: fileID, line: line, function: function)
    }

    /// Dispatches the recorded mix `serial` of `bus` (one of ``buses``, the first by default)
    /// again (its mixer or action, with its recorded payload or fields), as the page's "Again"
    /// does; returns why it could not, if it could not.
    public func dispatchAgain(_ serial: UInt64, on bus: Flux? = nil) async -> String? {
        await lane(of: bus).dispatchAgain(serial, domains: domains)
    }

    /// The lane of `bus`, the first for nil.
    private func lane(of bus: Flux?) -> LiveBus {
        guard let bus else { return lanes[0] }
        guard let lane = lanes.first(where: { $0.bus === bus }) else {
            preconditionFailure("the live session does not record the bus \(bus.label): start it with buses: [...]")
        }
        return lane
    }

    /// Stops recording (the page shows no new mixes) until ``resume()``.
    public func pause() { setPaused(true) }

    /// Records again after ``pause()``.
    public func resume() { setPaused(false) }

    /// Pauses or resumes recording: the journals leave their buses or come back, once.
    private func setPaused(_ paused: Bool) {
        let wasPaused = self.paused.withLock { state in
            defer { state = paused }
            return state
        }
        guard wasPaused != paused else { return }
        for lane in lanes {
            if paused { lane.bus.remove(lane.journal) } else { lane.bus.use(lane.journal) }
        }
    }

    /// Where the mixes the page asks for (jumps, dispatches, mixes again) say they came from.
    static let page: StaticString = "the live session page"

    /// 128 random bits, as 32 hexadecimal digits (`SystemRandomNumberGenerator` is the system's
    /// cryptographic generator).
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let word = generator.next()
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}

/// Why ``LiveSession/start(buses:substances:actions:mixers:maxAge:interface:port:printsAddress:)`` failed.
public enum LiveSessionError: Error, Sendable, Equatable {
    /// The server did not report an IPv4 address it listens on.
    case notListening
    /// No bus was given to record.
    case noBus
    /// The substance named mixes on none of the buses given: a jump could not move it.
    case substanceOnAnotherBus(String)
    /// The interface given is not an IPv4 address written with four numbers (a host name or an
    /// IPv6 address).
    case notAnIPv4Address(String)
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
