import FlaskTesting
import FluxBus
import Testing

@testable import Substances

@Suite("Change probe")
struct ChangeProbeTests {
    @Test("the probe passes when the changes are exactly the expected ones, leaf keys, in order")
    func exact() async throws {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let probe = ChangeProbe(editor)
        bus.dispatch(.increment)
        bus.dispatch(.type, ["text": "hi there"])
        try await probe.expect([
            .change("count", from: 0, to: 1),
            .change("text", from: "", to: "hi there", in: "editor"),
            .change("info.words", from: 0, to: 2),
        ])
        bus.dispatch(.refuse)
        try await probe.expectNoChanges()
    }

    @Test("an unexpected, a missing or a different change fails with a readable diff")
    func mismatch() async throws {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let probe = ChangeProbe(editor)
        bus.dispatch(.increment)
        bus.dispatch(.increment, ["by": 5])
        let error = await #expect(throws: ChangeProbe.Mismatch.self) {
            try await probe.expect([
                .change("count", from: 0, to: 1),
                .change("count", from: 1, to: 2),
                .change("text", from: "", to: "x"),
            ])
        }
        #expect(
            error?.diff == """
                  editor.count: 0 → 1
                − *.count: 1 → 2
                − *.text: "" → "x"
                + editor.count: 1 → 6
                """)
        // The thrown mismatch names the file and line of the call (inside `#expect(throws:)`, the
        // macro's line).
        #expect(error?.location == "FlaskTestingTests/ChangeProbeTests.swift:32")
        #expect(error?.description.hasPrefix("FlaskTestingTests/ChangeProbeTests.swift:32: Changes differ") == true)
        // What was checked is forgotten, failed or not.
        try await probe.expectNoChanges()
    }

    @Test("a mismatch returned to the caller's own expectation, reported at the caller's line")
    func mismatchAtTheCallersLine() async {
        let bus = Flux()
        let editor = Editor(name: "editor", bus: bus)
        let probe = ChangeProbe(editor)
        bus.dispatch(.increment)
        #expect(await probe.mismatch(with: [.change("count", from: 0, to: 1)]) == nil)
        bus.dispatch(.increment)
        let mismatch = await probe.mismatch(with: [.change("count", from: 0, to: 1)])
        #expect(mismatch?.diff == "− *.count: 0 → 1\n+ editor.count: 1 → 2")
        #expect(mismatch?.location == nil)
    }

    @Test("nil values and several substances")
    func optionalsAndSubstances() async throws {
        struct Profile: State {
            var nickname: String?
        }
        let bus = Flux()
        let first = Substance<Profile>(name: "first", bus: bus)
        let second = Substance<Profile>(name: "second", bus: bus)
        let probe = ChangeProbe(first, second)
        await second.mixAndWait { $0.prop.nickname = "ada" }
        await first.mixAndWait { $0.prop.nickname = "bob" }
        await second.mixAndWait { $0.prop.nickname = nil }
        try await probe.expect([
            .change("nickname", from: nil, to: "ada", in: "second"),
            .change("nickname", from: nil, to: "bob", in: "first"),
            .change("nickname", from: "ada", to: nil, in: "second"),
        ])
    }
}
