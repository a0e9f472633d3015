// A child process for the archive tests: `storm` writes archives as fast as it can until it is
// killed; `exit` schedules a debounced write far in the future and exits normally, which must
// flush it.
import Archive
import Foundation

struct Payload: Codable {
    var counter: Int
    var filler: String
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: ArchiveProbe storm|exit <directory> <key>\n".utf8))
    exit(2)
}
let store = try FileArchiveStore(directory: URL(fileURLWithPath: arguments[2]))
let key = arguments[3]
let filler = String(repeating: "x", count: 64 * 1024)

switch arguments[1] {
case "storm":
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var counter = 0
    while true {
        counter += 1
        try store.set(try JSONEncoder().encode(Payload(counter: counter, filler: filler)), forKey: key)
    }
case "exit":
    let archiver = Archiver(store: store)
    archiver.scheduleWrite(key: key, after: 3600) { try JSONEncoder().encode(Payload(counter: 42, filler: "")) }
    exit(0)
case "measure-restore":
    try RestoreMeasurement.run(directory: URL(fileURLWithPath: arguments[2]), medium: key)
default:
    exit(2)
}
