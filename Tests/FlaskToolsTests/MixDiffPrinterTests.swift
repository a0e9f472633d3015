import FlaskTestSupport
import FlaskTools
import FluxBus
import Reactors
import Substances
import Testing

private struct ProfileState: State {
    struct Address: Codable, Sendable {
        var city = ""
    }
    var name: String?
    var address = Address()
    var password = ""
    var _drafts = 0
    static var secretKeys: Set<String> { ["password"] }
}

private enum ProfileMixers: SubstanceMixer { case edit }

@Suite("Diff printer: each mix as - old / + new per key")
struct MixDiffPrinterTests {
    @Test("a mix prints its line, then each changed key with its old and new value; secrets and _ properties never")
    func printsDiffs() async {
        let bus = Flux()
        let printed = Recorder<String>()
        bus.use(MixDiffPrinter(output: { printed.append($0) }))
        let profile = ReactiveSubstance<ProfileState, ProfileMixers>(name: "profile", bus: bus) { define in
            define(mix: .edit) { profile, _, react, _ in
                profile.prop.name = "ada \"the first\""
                profile.prop.address.city = "London"
                profile.prop.password = "hunter2"
                profile.prop._drafts += 1
                react()
            }
        }
        bus.dispatch(ProfileMixers.edit.busName, payload: ["reason": "signup"])
        await bus.flush()
        let text = printed.all.joined(separator: "\n")
        #expect(text.hasPrefix("mix #1 ProfileMixers.edit [reason: String] → 1 observer"), "\(text)")
        #expect(text.contains("  profile.name\n  - nil\n  + \"ada \\\"the first\\\"\""), "\(text)")
        #expect(text.contains("  profile.address.city\n  - \"\"\n  + \"London\""), "\(text)")
        #expect(text.contains("  profile.password\n  - <redacted>\n  + <redacted>"), "\(text)")
        #expect(!text.contains("hunter2") && !text.contains("_drafts") && !text.contains("signup"))
        _ = profile
    }

    @Test("an element appended or an entry added prints its new value alone; one gone, its old value alone")
    func printsAddedAndRemoved() async {
        struct ListState: State {
            var tags = ["a", "b", "c"]
            var index = ["x": 1]
        }
        let bus = Flux()
        let printed = Recorder<String>()
        bus.use(MixDiffPrinter(output: { printed.append($0) }))
        let list = Substance<ListState>(name: "list", bus: bus)
        await ChainReaction().mix(list) {
            $0.prop.tags.append("d")
            $0.prop.index["x"] = nil
        }
        .reactAndWait()
        await ChainReaction().mix(list) { $0.prop.tags.removeLast() }.reactAndWait()
        await bus.flush()
        let text = printed.all.joined(separator: "\n")
        #expect(text.contains("  list.tags.3\n  + \"d\"\n"), "\(text)")
        #expect(text.contains("  list.index.x\n  - 1"), "\(text)")
        #expect(text.hasSuffix("  list.tags.3\n  - \"d\""), "\(text)")
        #expect(!text.contains("null"), "a side that did not exist is no null: \(text)")
    }
}
