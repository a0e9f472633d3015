// The Swift sample of Sources/Archive/Archive.docc, compiled as it appears there
// (DocumentationSamplesTests checks that every block of the catalog is in a compiled file), and
// run. It imports Archive alone, not FlaskAPI: what a user of the Archive product has.
import Archive
import FlaskTesting
import Testing

struct SampleSettings: Codable {
    var volume = 5
}

func saveAndRestoreSafely(settings: SampleSettings, archiver: Archiver) -> SampleSettings {
    archiver.scheduleWrite(key: "settings", after: 2) { try ArchiveEncoder().encode(settings) }
    archiver.flush()
    return archiver.restore(SampleSettings.self, key: "settings", defaultValue: SampleSettings()).value
}

@Suite("The Archive catalog's sample, run")
struct ArchiveCatalogSampleTests {
    @Test("the settings are written and restored")
    func saveAndRestore() {
        let archiver = Archiver(store: InMemoryArchiveStore())
        let restored = saveAndRestoreSafely(settings: SampleSettings(volume: 9), archiver: archiver)
        #expect(restored.volume == 9)
    }
}
