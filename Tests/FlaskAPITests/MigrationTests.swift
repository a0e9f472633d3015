import FlaskAPI
import FlaskTestSupport
import Testing

/// The Flask 1.1.8 names still work (docs/migrating.md).
@Suite("Migrating from Flask 1.x", .serialized)
struct MigrationTests {
    @available(*, deprecated, message: "exercises the 1.1.8 names")
    @Test("the 1.1.8 names compile and behave like the new ones")
    func legacyNames() async {
        let seen = Recorder<Int>()
        let controller = LegacyViewController { seen.append($0) }
        controller.viewDidLoad()
        await Flask.bus.flush()
        #expect(seen.all == [10])
        Flask.detachReactor(from: controller)

        let owner = TestOwner()
        let legacySeen = Recorder<Int>()
        let substance = legacyInstance(owner: owner) { legacySeen.append($0) }
        await Flask.bus.flush()
        #expect(legacySeen.all == [1])
        #expect(substance.state.counter == 1)
        Flask.detachReactor(from: owner)
    }

    @Test("misuse of the facade is reported, not fatal")
    func facadeMisuse() async {
        let reports = Recorder<FluxDiagnostic>()
        let bus = Flask.bus
        let previous = bus.diagnostics
        bus.diagnostics = { reports.append($0) }
        defer { bus.diagnostics = previous }
        let owner = TestOwner()
        Flask.detachReactor(from: owner)
        let unbound = Flask.getReactor(attachedTo: owner)
        #expect(unbound.substances.isEmpty)
        _ = Flask.reactor(attachedTo: owner, mixing: Feed())
        _ = Flask.reactor(attachedTo: owner, mixing: Feed())
        _ = Flask.getReactor(attachedTo: owner)
        Flask.detachReactor(from: owner)
        let mine = reports.all.filter { $0.message.contains("TestOwner") }
        #expect(mine.map(\.code) == [.reactorMisuse, .reactorMisuse, .reactorMisuse])
    }
}
