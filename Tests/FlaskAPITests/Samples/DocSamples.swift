// Samples of docs/ that are not seed samples, compiled as they appear there.
import FlaskAPI
import Foundation

struct SampleSettings: Codable {
    var volume = 5
}

func useFileArchives(in directory: URL) throws {
    Archiver.shared.store = try FileArchiveStore(directory: directory)
}

func saveAndRestore(settings: SampleSettings, archiver: Archiver) -> SampleSettings {
    archiver.scheduleWrite(key: "settings", after: 2) { try JSONEncoder().encode(settings) }
    archiver.flush()
    return archiver.restore(SampleSettings.self, key: "settings", defaultValue: SampleSettings()).value
}

// docs/getting-started.md: a reactor that declares its keys.
@MainActor
final class UserLabel {
    var text = ""

    func start() {
        let reactor = Flask.reactor(attachedTo: self, mixing: Session.shared)
        reactor.keys = ["user"]
        reactor.mainActorHandler = { label, reaction in
            reaction.on("user") { change in label.text = change.newValue() ?? "nobody" }
        }
    }
}
