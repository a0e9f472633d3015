import FlaskTestSupport
import FluxBus
import Foundation
import Reactors
import Substances
import Synchronization
import Testing

private struct Rename: FlaskAction {
    let title: String
}

/// Each commit's record as a reaction read it: copied out in the handler.
private struct Seen: Sendable {
    let kind: MixSource.Kind
    let name: FluxMixerName
    let origin: FluxOrigin?
    let serial: UInt64
    let keys: [String]
    let payload: String?
    let action: String?
    let hasLock: Bool
}

/// A reactor over `substances` on `bus` that copies each commit's record out.
private func recorder(_ substances: [any AnySubstance], owner: TestOwner) -> (Reactor<TestOwner>, Recorder<Seen>) {
    let seen = Recorder<Seen>()
    let reactor = Reactor(owner: owner, mixing: substances)
    reactor.handler = { _, reaction in
        let commit = reaction.commit
        seen.append(
            Seen(
                kind: commit.mix.kind, name: commit.mix.name, origin: commit.origin, serial: commit.serial,
                keys: commit.keys, payload: commit.mix.payload?["value"].map { "\($0)" },
                action: (commit.mix.action as? Rename)?.title, hasLock: commit.lock != nil))
        _ = reaction.onLock  // takes an exclusive mix's lock over...
        reaction.onLock?.release()  // ...and releases it
    }
    return (reactor, seen)
}

private func makeDocument(on bus: Flux) -> ReactiveSubstance<AppState, EnvMixers> {
    ReactiveSubstance<AppState, EnvMixers>(name: "document", bus: bus) { define in
        define(mix: .asyncAction) { document, payload, react, _ in
            document.prop.asyncResult = payload?["value"] as? Int ?? 1
            react()
        }
        define(Rename.self) { document, rename, react, _ in
            document.prop.text = rename.title
            react()
        }
    }
}

@Suite("The commit record: what changed, by which mix, from where")
struct CommitRecordTests {
    @Test(
        "a middleware reads each commit's mix in its report, in place or kept past it: its own, never the next mix's",
        arguments: [true, false])
    func reportReadsEachCommitsOwnMix(inPlace: Bool) async {
        let bus = Flux(label: "record.lent.\(inPlace)")
        let document = makeDocument(on: bus)
        let owner = TestOwner()
        // A reactor, so that each commit is delivered and its changes refilled by the next one
        // when nobody kept them.
        let (reactor, reactions) = recorder([document], owner: owner)
        let reader = MixNameReader(inPlace: inPlace)
        bus.use(reader)
        var wanted: [String] = []
        for round in 1...4 {
            let line = #line + 1
            bus.dispatch(EnvMixers.asyncAction, payload: ["value": round])
            wanted.append("mixer EnvMixers.asyncAction \(round) @\(line)")
            let renamed = #line + 1
            bus.dispatch(Rename(title: "t\(round)"))
            wanted.append("action Rename t\(round) @\(renamed)")
            let chained = #line + 1
            await ChainReaction(bus: bus).mix(document) { $0.prop.text = "c\(round)" }.reactAndWait()
            wanted.append("chain chain @\(chained)")
        }
        await bus.flush()
        #expect(reader.seen.withLock { $0 } == wanted)
        #expect(reactions.count == wanted.count)
        withExtendedLifetime((document, owner, reactor)) {}
    }

    @Test("a dispatch's commit names its mixer, payload and origin (file, line, function), and its serial")
    func dispatchedMixer() async {
        let bus = Flux(label: "record.mixer")
        let document = makeDocument(on: bus)
        let owner = TestOwner()
        let (reactor, seen) = recorder([document], owner: owner)
        let line: UInt = #line + 1
        bus.dispatch(EnvMixers.asyncAction, payload: ["value": 7])
        bus.dispatch(Rename(title: "ada"))
        await bus.flush()
        let records = seen.all
        #expect(records.count == 2)
        #expect(records.first?.kind == .mixer)
        #expect(records.first?.name == EnvMixers.asyncAction.busName)
        #expect(records.first?.payload == "7")
        #expect(records.first?.keys == ["asyncResult"])
        #expect(records.first?.origin?.line == line)
        let file = records.first?.origin.map { "\($0.fileID)" } ?? ""
        let function = records.first?.origin.map { "\($0.function)" } ?? ""
        #expect(file == "ReactorsTests/CommitRecordTests.swift")
        #expect(function == "dispatchedMixer()")
        #expect(records.last?.kind == .action)
        #expect(records.last?.action == "ada")
        #expect(records.last?.origin?.line == line + 1)
        #expect(records[0].serial < records[1].serial)
        withExtendedLifetime(reactor) {}
    }

    @Test("an exclusive mix's commit carries its lock; an awaited one's outcome, the record")
    func exclusiveAndAwaited() async {
        let bus = Flux(label: "record.exclusive")
        let document = makeDocument(on: bus)
        let owner = TestOwner()
        let (reactor, seen) = recorder([document], owner: owner)
        _ = bus.lock(withMixer: EnvMixers.asyncAction.busName, payload: ["value": 2])
        await bus.flush()
        #expect(seen.all.map(\.kind) == [.exclusiveMixer])
        #expect(seen.all.map(\.hasLock) == [true])
        let line: UInt = #line + 1
        let outcome = await bus.apply(Rename(title: "grace"))
        let commit = outcome.entries.first?.commit
        #expect(commit?.mix.kind == .action)
        #expect(commit?.origin?.line == line)
        #expect(commit?.keys == ["text"])
        withExtendedLifetime(reactor) {}
    }

    @Test("a chain's commits share its serial and name the chain, with where react() was called")
    func chain() async {
        let bus = Flux(label: "record.chain")
        let first = Substance<AppState>(bus: bus)
        let second = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let (reactor, seen) = recorder([first, second], owner: owner)
        let line: UInt = #line + 1
        reactor.mix(first) { $0.prop.counter = 1 }.mix(second) { $0.prop.text = "b" }.react()
        await ChainReaction(label: "move").mix(first) { $0.prop.counter = 2 }.reactAndWait()
        await bus.flush()
        let records = seen.all
        #expect(records.map(\.kind) == [.chain, .chain, .chain])
        #expect(records.map(\.name) == ["chain", "chain", "move"])
        #expect(records[0].serial == records[1].serial, "one work item")
        #expect(records[2].serial > records[1].serial)
        #expect(records[0].origin?.line == line && records[1].origin?.line == line)
        #expect(records[2].origin?.line == line + 1)
        withExtendedLifetime(reactor) {}
    }

    @Test("a rollback's commit is a task named rollback")
    func rollback() async {
        let bus = Flux(label: "record.rollback")
        let substance = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        substance.captureState()
        await ChainReaction().mix(substance) { $0.prop.counter = 5 }.reactAndWait()
        let (reactor, seen) = recorder([substance], owner: owner)
        substance.rollbackState()
        await bus.flush()
        #expect(seen.all.map(\.kind) == [.task])
        #expect(seen.all.map(\.name) == ["rollback"])
        withExtendedLifetime(reactor) {}
    }

    @Test("middleware read the commits of a mix in its report, and where it was dispatched from")
    func middlewareReadsCommits() async {
        let bus = Flux(label: "record.middleware")
        let document = makeDocument(on: bus)
        let reader = CommitReader()
        bus.use(reader)
        let line: UInt = #line + 1
        bus.dispatch(Rename(title: "linus"))
        await bus.flush()
        #expect(reader.seen.withLock { $0 } == ["\(line) text \(line)"])
        withExtendedLifetime(document) {}
    }
}

/// Each commit's mix as a middleware reads it on the bus: in place (`forEachOutcome`, the changes
/// lent, their source where the bus keeps it) or through `commits`, kept and read again at each
/// later mix.
private final class MixNameReader: FluxMiddleware, @unchecked Sendable {
    // `@unchecked Sendable`: `kept` and `keptNames` are touched only in `didMix`, on the bus.
    let inPlace: Bool
    let seen = Mutex<[String]>([])
    private var kept: [Commit] = []
    private var keptNames: [String] = []

    init(inPlace: Bool) {
        self.inPlace = inPlace
    }

    func didMix(_ report: FluxMixReport) {
        var names: [String] = []
        if inPlace {
            report.forEachOutcome { entry in
                guard let commit = entry.commit else { return }
                names.append(Self.describe(commit))
            }
        } else {
            // The commits kept from earlier reports still name their own mixes.
            if kept.map(Self.describe) != keptNames { names.append("kept commits changed") }
            let commits = report.commits
            names += commits.map(Self.describe)
            kept += commits
            keptNames += commits.map(Self.describe)
        }
        seen.withLock { $0.append(contentsOf: names) }
    }

    static func describe(_ commit: Commit) -> String {
        let value = commit.mix.payload?["value"].map { " \($0)" } ?? ""
        let action = (commit.mix.action as? Rename).map { " \($0.title)" } ?? ""
        return "\(commit.mix.kind) \(commit.mix.name)\(value)\(action) @\(commit.origin?.line ?? 0)"
    }
}

private final class CommitReader: FluxMiddleware {
    let seen = Mutex<[String]>([])

    func didMix(_ report: FluxMixReport) {
        let commits = report.commits
        let line = report.origin?.line ?? 0
        seen.withLock { seen in
            for commit in commits { seen.append("\(line) \(commit.keys.joined()) \(commit.origin?.line ?? 0)") }
        }
    }
}
