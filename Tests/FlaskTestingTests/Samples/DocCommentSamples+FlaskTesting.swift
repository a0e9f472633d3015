// The `///` samples of Sources/FlaskTesting, compiled as they appear there (DocumentationSamplesTests
// checks that every Swift block of a documentation comment appears in a compiled file under
// Tests/). Each fragment runs inside a function that declares what it uses; nothing calls them.
// They import FlaskTesting and the core modules, not FlaskAPI: what a test target that adds the
// FlaskTesting product has. `swift-format-ignore` keeps a sample's own layout where swift-format
// would change it (the spaces before an end-of-line comment, say): the copy must match the comment
// line for line.
import Archive
import FlaskTesting
import Substances
import Testing
import XCTest

private enum FlaskTestingDocSamples {
    enum CounterMixers: SubstanceMixer {
        case increment
    }

    struct CountState: State {
        var count = 0
    }

    final class Counter: ReactiveSubstance<CountState, CounterMixers>, @unchecked Sendable {
        override func defineMixers() {
            define(mix: .increment) { _, react, _ in
                self.prop.count += 1
                react()
            }
        }
    }

    struct Draft: State {
        var text = ""
    }

    // ChangeProbe
    // swift-format-ignore
    static func expectIncrement(of counter: Counter) async throws {
        let probe = ChangeProbe(counter)
        counter.bus.dispatch(CounterMixers.increment)
        try await probe.expect([
            .change("count", from: 0, to: 1),
        ])
    }

    // ChangeProbe.mismatch(with:)
    // swift-format-ignore
    static func checkIncrement(with probe: ChangeProbe) async {
        let mismatch = await probe.mismatch(with: [.change("count", from: 0, to: 1)])
        #expect(mismatch == nil)     // Swift Testing
        XCTAssertNil(mismatch)       // XCTest
    }

    // InMemoryArchiveStore
    static func archiveInMemory() -> Substance<Draft> {
        let store = InMemoryArchiveStore()
        let settings = ArchiveSettings(archiver: Archiver(store: store, clock: ManualArchiveClock()))
        let draft = Substance<Draft>(name: "draft", archive: true, archiveSettings: settings)
        return draft
    }
}
