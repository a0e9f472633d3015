// NotesServer: POST /notes appends a note; GET /notes returns the count and the latest notes.
//
//   swift run -c release NotesServer --port 8080 --data /tmp/notes [--durable]
//
// With --durable, a request is answered only once its note is on disk (`MixOutcome.stored()`),
// so a crash loses nothing that was acknowledged; writes of requests that arrive together are
// shared (group commit). Without it, the note is archived within the substance's debounce (up to
// five seconds later).
import FlaskAPI
import Foundation
import Hummingbird
import ServiceLifecycle

var port = 8080
var dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("notes-server")
var durable = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port": port = arguments.next().flatMap(Int.init) ?? port
    case "--data": dataDirectory = URL(fileURLWithPath: arguments.next() ?? dataDirectory.path)
    case "--durable": durable = true
    default:
        print("usage: NotesServer [--port N] [--data DIR] [--durable]")
        exit(2)
    }
}

// The store, chosen before the substance restores its state.
Archiver.shared.store = try FileArchiveStore(directory: dataDirectory)
let notes = makeNotes()
// Another live server on the same data would own the archive: this one could store nothing it
// acknowledged, so it stops at once rather than answer 503 to every request.
do {
    try notes.claimArchive()
} catch {
    FileHandle.standardError.write(Data("NotesServer: cannot start: \(error)\n".utf8))
    exit(1)
}

/// What GET /notes answers.
struct NotesPage: ResponseEncodable {
    let count: Int
    let recent: [String]
}

let router = Router()
router.post("notes") { [durable] request, _ -> Response in
    let body = try await request.body.collect(upTo: 64 * 1024)
    let outcome = await Flask.apply(PostNote(text: String(buffer: body)))
    // Only a mix that applied is acknowledged: not one a middleware stopped, aborted, or nobody received.
    guard outcome.wasApplied else { return Response(status: .badRequest) }
    if durable {
        do {
            try await outcome.stored()
        } catch {
            // Not on disk: not acknowledged. The write stays pending and is retried.
            return Response(status: .serviceUnavailable)
        }
    }
    return Response(status: .ok)
}
router.get("notes") { _, _ -> NotesPage in
    let state = notes.state
    return NotesPage(count: state.count, recent: state.recent)
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
let group = ServiceGroup(
    configuration: .init(
        services: [.init(service: ArchiveFlushService()), .init(service: app)],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: app.logger))
print("ready on 127.0.0.1:\(port), data in \(dataDirectory.path)\(durable ? ", durable" : "")")
try await group.run()
// Back from a graceful shutdown: the flush service wrote what was pending (and so would the exit
// flush of a normal return).
withExtendedLifetime(notes) {}
// How much each `fsync` was shared: under load, many acknowledgements per durable write.
if durable { print("durable: \(Archiver.shared.durabilityStatistics)") }
