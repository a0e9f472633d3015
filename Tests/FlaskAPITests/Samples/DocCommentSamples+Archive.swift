// The `///` samples of Sources/Archive, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a file of this folder).
// Each fragment runs inside a function that declares what it uses; nothing calls them.
// `swift-format-ignore` keeps a sample's own layout where swift-format would change it (the spaces
// before an end-of-line comment, say): the copy must match the comment line for line.
import FlaskAPI
import FlaskTesting
import Foundation

private enum ArchiveDocSamples {
    struct Settings: Codable {
        var volume = 5
    }

    // Archiver
    static func archive(_ settings: Settings, in folder: URL) throws -> Settings {
        let archiver = Archiver(store: try FileArchiveStore(directory: folder))
        archiver.scheduleWrite(key: "settings", after: 2) { try ArchiveEncoder().encode(settings) }
        let restored = archiver.restore(Settings.self, key: "settings", defaultValue: Settings())
        return restored.value
    }

    // Archiver.writeNow(key:store:owner:onFailure:onRecovery:encode:completion:)
    // swift-format-ignore
    static func writeNow(_ settings: Settings, with archiver: Archiver) {
        archiver.writeNow(key: "settings", encode: { try ArchiveEncoder().encode(settings) }) { problem in
            if let problem { print(problem) }
        }
    }

    // Archiver.stored(key:)
    // swift-format-ignore
    static func acknowledge(_ orders: [String], with archiver: Archiver) async throws {
        archiver.scheduleWrite(key: "orders", after: 2) { try ArchiveEncoder().encode(orders) }
        try await archiver.stored(key: "orders")   // on disk now: acknowledge the order
    }

    // Archiver.confirmOwnership(of:store:)
    static func confirmOwnership() {
        do {
            try Archiver.shared.confirmOwnership(of: "Fx.1.notes")
        } catch {
            print("another process owns the notes: \(error)")
        }
    }

    // ArchiveClock
    static func debounce(into store: any ArchiveStore) {
        let clock = ManualArchiveClock()
        let archiver = Archiver(store: store, clock: clock)
        archiver.scheduleWrite(key: "k", after: 2) { Data("v".utf8) }
        clock.advance(by: .seconds(2))
        archiver.waitForWritesInProgress()
    }

    // ArchiveEncoder
    static func encode(_ settings: Settings) throws -> Data {
        let data = try ArchiveEncoder().encode(settings)
        return data
    }

    // ArchivePatch
    // swift-format-ignore
    static func patchBoard(_ board: [String: [String: String]], archiver: Archiver) {
        let patch = ArchivePatch([.set(path: ["cards", "c42"], json: Data(#"{"title":"tea"}"#.utf8))])
        archiver.scheduleWrite(key: "board", after: 2, encode: { try ArchiveEncoder().encode(board) }, patch: { patch })
    }
}
