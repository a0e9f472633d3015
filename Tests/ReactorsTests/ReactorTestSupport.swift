import Dispatch
import FluxBus
import Reactors
import Substances

struct AppState: State {
    enum prop: StateProp { case counter, text, asyncResult }
    var counter = 0
    var text = ""
    var asyncResult = 0
    var info = Info()

    struct Info: Codable, Equatable {
        var counter = 0
        var label = ""
    }
}

enum EnvMixers: SubstanceMixer {
    case increment, nothing, asyncAction
}

final class AppSubstance: ReactiveSubstance<AppState, EnvMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .increment) { _, react, _ in
            self.prop.counter += 1
            react()
        }
        define(mix: .nothing) { _, react, _ in react() }
        define(mix: .asyncAction) { payload, react, _ in
            self.prop.asyncResult = payload?["value"] as? Int ?? 1
            react()
        }
    }
}

final class TestOwner: Sendable {}

func name(_ mixer: EnvMixers) -> FluxMixerName {
    mixer.busName
}

extension Flux {
    func settleExclusive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            performExclusive { continuation.resume() }
        }
    }
}

/// Nine structs of nine `Int`s and a property with a long name: 91 keys, every one a plan entry
/// (the parents too), for reactions over many entries.
struct NinesState: State {
    struct Nine: Codable, Equatable, Sendable {
        var a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0, i = 0
    }
    var s0 = Nine(), s1 = Nine(), s2 = Nine(), s3 = Nine(), s4 = Nine(), s5 = Nine(), s6 = Nine(), s7 = Nine()
    var s8 = Nine()
    var aPropertyWithALongName = 0

    /// Every leaf key and its key path (computed on each use: key paths are not `Sendable`).
    static var leaves: [String: WritableKeyPath<NinesState, Int>] {
        let structs: [WritableKeyPath<NinesState, Nine>] = [\.s0, \.s1, \.s2, \.s3, \.s4, \.s5, \.s6, \.s7, \.s8]
        let fields: [(String, WritableKeyPath<Nine, Int>)] = [
            ("a", \.a), ("b", \.b), ("c", \.c), ("d", \.d), ("e", \.e), ("f", \.f), ("g", \.g), ("h", \.h), ("i", \.i),
        ]
        var leaves: [String: WritableKeyPath<NinesState, Int>] = ["aPropertyWithALongName": \.aPropertyWithALongName]
        for (index, path) in structs.enumerated() {
            for (name, field) in fields { leaves["s\(index).\(name)"] = path.appending(path: field) }
        }
        return leaves
    }

    /// The leaves and the nine parents.
    static var allKeys: [String] { leaves.keys.sorted() + (0..<9).map { "s\($0)" } }
}

extension Flux {
    /// Blocks the calling thread until the bus has run what its main lane holds now: a test that
    /// keeps the main actor busy this way lets reactions for it wait in the mailbox.
    func waitForMainLane() {
        let ran = DispatchSemaphore(value: 0)
        perform { ran.signal() }
        ran.wait()
    }

    /// Blocks the calling thread until the bus has run what its exclusive lane holds now (it runs
    /// while locks pause the main lane).
    func waitForExclusiveLane() {
        let ran = DispatchSemaphore(value: 0)
        performExclusive { ran.signal() }
        ran.wait()
    }
}

/// Suspends until the main actor has run every job sent to it before this call (reactions
/// included), without waiting for any bus (unlike `flushToMainActor()`, which waits for locks).
func mainActorRanWhatWasSent() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        MainActorMailbox.shared.send { done.resume() }
    }
}
