// The seed README's "Special Features" samples: chain reactions, locks, async mixing with locks,
// objects and dictionaries, archiving, internal state props, and the low-level API.
import FlaskAPI
import Foundation

// > Chain Reactions, high-level API
func chainHighLevel(owner: TestOwner, substanceA: Feed, substanceB: Feed) {
    Flask.getReactor(attachedTo: owner)
        .mixing(substanceA) { (substance) in
            substance.prop.counter = 10

        }.with(substanceB) { (substance) in
            substance.prop.text = "text"

        }.andReact()
}

// > Chain Reactions, low-level API
func chainLowLevel(reactorInstance: Reactor<TestOwner>, substanceA: Feed, substanceB: Feed) {
    reactorInstance
        .mix(substanceA) { (substance) in
            substance.prop.counter = 10

        }.mix(substanceB) { (substance) in
            substance.prop.text = "text"

        }.react()
}

// > Locks
func pauseTheFlux(whilePaused work: () -> Void) {
    let lock = Flask.lock()

    // perform operations while the flux is paused
    work()

    lock.release()
}

// > Async Mixing with Locks: request a mix over a locked flux
func requestAsyncMix() {
    Flask.lock(withMixer: EnvMixers.AsyncAction)
}

// > Async Release (the seed waits 2 seconds on the main queue; any later moment works)
func asyncRelease(reactor: Reactor<TestOwner>, released: @escaping @Sendable () -> Void) {
    reactor.handler = { owner, reaction in
        reaction.on(AppState.prop.asyncResult) { (change) in

            //pass the reaction's lock to an async block
            let lock = reaction.onLock
            DispatchQueue.global().async(execute: {
                //release when the operation is completed
                lock?.release()
                released()
            })

        }
    }
}

// > NSObjects and Dictionaries
struct myState: State {
    var object = FlaskRef(NSObject())
}

struct DictState: State {
    enum prop: StateProp {
        case info
    }

    var info: FlaskDictRef?
}

func assignValues(reactor: Reactor<TestOwner>, substance: Substance<DictState>) {
    reactor.mix(substance) { (substance) in

        let data: NSDictionary = [
            "foo": "bar",
            "nest": [
                "data": "some"
            ],

        ]

        substance.prop.info = FlaskDictRef(data)

    }.react()
}

func observeNestedKey(reactor: Reactor<TestOwner>, seen: @escaping @Sendable (String) -> Void) {
    reactor.handler = { owner, reaction in
        reaction.on(
            "info.nest.data",
            { (change) in
                print(change.newValue()!)
                seen(change.newValue()!)
            })
    }
}

// > Archiving
final class MySubstanceClass: Substance<AppState>, @unchecked Sendable {
    override func archiveKeySpace() -> String {
        return "1"
    }

    override func archiveKey() -> String {
        return "Fx.\(archiveKeySpace()).\(name())"
    }

    override func archiveDelay() -> Double {
        return 2.0
    }

    override func archiveDisabled() -> Bool {
        return !shouldArchive
    }
}

func makeArchivedSubstance(uniqueName: String) -> MySubstanceClass {
    let substance = MySubstanceClass(name: uniqueName, archive: true)
    return substance
}

// > Internal state props
struct InternalState: State {
    var _internal = "`_` use this prefix for internal vars "
    var visible = 0
}

// > Low-level API
@available(*, deprecated, message: "the seed's low-level applyMixer, deprecated for substances(reactTo:)")
func lowLevelAPI(owner: TestOwner, substance: Feed) -> Int {
    Flask.purgeFluxQueue()
    let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
    let lock = Flask.lock()
    Flask.applyMixer(EnvMixers.Logout, payload: nil)
    lock.release()
    let count = ReactorManager.shared.reactors.filter { $0.anyOwner === owner }.count
    Flask.detachReactor(from: owner)
    _ = reactor
    return count
}
