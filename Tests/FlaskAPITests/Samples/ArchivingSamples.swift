// docs/archiving.md, compiled as it appears there.
import FlaskAPI
import FlaskTesting
import Foundation

func useArchivesNamed(_ applicationName: String) {
    Archiver.shared.store = FileArchiveStore(applicationName: applicationName)
}

func makeSettings() -> Substance<AppState> {
    Substance<AppState>(name: "settings", archive: true)
}

func saveBeforeQuitting(_ settings: Substance<AppState>) async throws {
    try await settings.archiveNowAndWait()
}

func makeDrafts() -> Substance<AppState> {
    let drafts = Substance<AppState>(
        name: "drafts", archive: true,
        archiveSettings: ArchiveSettings(delay: 1, maxDelay: 3))
    return drafts
}

func runService() {
    Archiver.flushOnTermination()
    // ... serve until SIGTERM
}

func savedAfterTwoSeconds(store: any ArchiveStore) -> Bool {
    let clock = ManualArchiveClock()
    let archiver = Archiver(store: store, clock: clock)
    archiver.scheduleWrite(key: "draft", after: 2) { Data("{}".utf8) }
    clock.advance(by: .seconds(2))
    archiver.waitForWritesInProgress()
    return (try? store.data(forKey: "draft")) != nil
}

func saveAndRestoreSafely(settings: SampleSettings, archiver: Archiver) -> SampleSettings {
    archiver.scheduleWrite(key: "settings", after: 2) { try ArchiveEncoder().encode(settings) }
    archiver.flush()
    return archiver.restore(SampleSettings.self, key: "settings", defaultValue: SampleSettings()).value
}
