import Dispatch
import FlaskAPI
import FlaskTools
import Observation

/// The owner of the benchmark's reactors.
final class BenchOwner: Sendable {}

/// S1 to S7 of SCENARIOS.md, written the way a user writes Flask code: string keys, mixers
/// dispatched with `Flask.substances(reactTo:)`, reactors from `Flask.reactor(attachedTo:mixing:)`.
let scenarios: [Scenario] = [
    Scenario(id: "S1", name: "counter", defaultCount: 1_000_000) { counter in
        counterRig(counter, substance: CounterSubstance())
    },
    Scenario(id: "S2", name: "wide-10", defaultCount: 1_000_000) { counter in
        wideRig(counter, reactorsPerField: 1)
    },
    Scenario(id: "S3", name: "fanout-100", defaultCount: 200_000) { counter in
        wideRig(counter, reactorsPerField: 10)
    },
    Scenario(id: "S4", name: "nested", defaultCount: 1_000_000) { counter in
        let substance = NestedSubstance()
        return oneReactorRig(
            counter, substance: substance, key: "a.b.c.leaf",
            dispatch: { Flask.substances(reactTo: NestedMixers.incrementLeaf) },
            verify: { count in
                let state = substance.state
                return state.a.b.c.leaf == count && state.a.b.label == "b" ? nil : "leaf is \(state.a.b.c.leaf)"
            })
    },
    Scenario(id: "S5", name: "wide-100", defaultCount: 1_000_000) { counter in
        let substance = HundredSubstance()
        return oneReactorRig(
            counter, substance: substance, key: "f0",
            dispatch: { Flask.substances(reactTo: HundredMixers.incrementFirst) },
            verify: { count in
                let state = substance.state
                return state.f0 == count && state.f99 == 0 ? nil : "f0 is \(state.f0)"
            })
    },
    Scenario(id: "S6", name: "chain", defaultCount: 500_000) { counter in
        let owner = BenchOwner()
        let a = Substance<CounterState>()
        let b = Substance<CounterState>()
        let reactor = Flask.reactor(attachedTo: owner, mixing: [a, b])
        reactor.handler = { _, reaction in reaction.on("counter") { _ in counter.hit() } }
        return Rig(
            dispatch: {
                reactor.mix(a) { $0.prop.counter += 1 }.mix(b) { $0.prop.counter += 1 }.react()
            },
            reactionsPerDispatch: 2,
            verify: { count in
                a.state.counter == count && b.state.counter == count
                    ? nil : "a is \(a.state.counter), b is \(b.state.counter)"
            },
            teardown: { Flask.detachReactor(from: owner) })
    },
    Scenario(id: "S7", name: "locked", defaultCount: 500_000) { counter in
        let owner = BenchOwner()
        let substance = CounterSubstance()
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        reactor.handler = { _, reaction in
            reaction.on("counter") { _ in
                reaction.onLock?.release()
                counter.hit()
            }
        }
        return Rig(
            dispatch: { Flask.lock(withMixer: CounterMixers.increment) },
            reactionsPerDispatch: 1,
            verify: { count in
                if substance.state.counter != count { return "counter is \(substance.state.counter)" }
                return Flask.bus.openLocks.isEmpty ? nil : "\(Flask.bus.openLocks.count) locks left open"
            },
            teardown: { Flask.detachReactor(from: owner) })
    },
]

/// Extra scenarios for the cost of Swift concurrency features on S1 (not in SCENARIOS.md): the
/// same counter with a change stream consumed alongside the reactor, and awaited dispatches.
let concurrencyScenarios: [Scenario] = [
    Scenario(id: "S1s", name: "counter+stream", defaultCount: 1_000_000) { counter in
        let substance = CounterSubstance()
        let stream = substance.changes(of: ["counter"])
        let consumer = Task { for await _ in stream {} }
        return counterRig(counter, substance: substance, teardown: { consumer.cancel() })
    },
    Scenario(id: "S1q", name: "counter-on-main", defaultCount: 1_000_000) { counter in
        // The reactor of a main-actor owner (a view): its reactions arrive on the main queue.
        let owner = BenchOwner()
        let substance = CounterSubstance()
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        reactor.mainActorHandler = { _, reaction in reaction.on("counter") { _ in counter.hit() } }
        var rig = Rig(
            dispatch: { Flask.substances(reactTo: CounterMixers.increment) },
            reactionsPerDispatch: 1,
            verify: { count in substance.state.counter == count ? nil : "counter is \(substance.state.counter)" },
            teardown: { Flask.detachReactor(from: owner) })
        rig.reactsOnMain = true
        return rig
    },
    Scenario(id: "S1o", name: "counter-observed", defaultCount: 1_000_000) { counter in
        // An `Observable` view of the substance, watched with `withObservationTracking` re-armed
        // after each change, as SwiftUI does; the run ends when the view shows the final value.
        let substance = CounterSubstance()
        let watcher = MainActor.assumeIsolated { ObservationWatcher(view: substance.observable(), counter: counter) }
        var rig = Rig(
            dispatch: { Flask.substances(reactTo: CounterMixers.increment) },
            reactionsPerDispatch: 1,
            verify: { count in substance.state.counter == count ? nil : "counter is \(substance.state.counter)" },
            teardown: { MainActor.assumeIsolated { watcher.stop() } })
        rig.reactsOnMain = true
        return rig
    },
    Scenario(id: "S1r", name: "counter+archive", defaultCount: 1_000_000) { counter in
        let substance = ArchivedCounter(name: "bench-\(UInt64.random(in: 0...UInt64.max))", archive: true)
        return counterRig(counter, substance: substance, teardown: { substance.purgeArchive() })
    },
    Scenario(id: "S1a", name: "counter-awaited", defaultCount: 100_000) { counter in
        // One task awaits each dispatch in turn (`await Flask.apply`), as async code does: the
        // cost of the round trip, from the dispatch until the task goes on after its mix.
        var rig = counterRig(
            counter, substance: CounterSubstance(),
            dispatch: {
                let done = DispatchSemaphore(value: 0)
                Task {
                    await Flask.apply(CounterMixers.increment)
                    done.signal()
                }
                done.wait()
            })
        rig.produce = { count in
            let done = DispatchSemaphore(value: 0)
            Task {
                for _ in 0..<count { await Flask.apply(CounterMixers.increment) }
                done.signal()
            }
            done.wait()
        }
        return rig
    },
    // S1a's floor (not in SCENARIOS.md): one task awaiting, in turn, a continuation that a serial
    // queue resumes, with no bus and no state: what an awaited call that crosses to another
    // thread and back costs before it does anything.
    Scenario(id: "S1af", name: "continuation-floor", defaultCount: 100_000) { counter in
        let queue = DispatchQueue(label: "S1af")
        let hop: @Sendable () async -> Void = {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queue.async {
                    counter.hit()
                    continuation.resume()
                }
            }
        }
        return Rig(
            dispatch: {
                let done = DispatchSemaphore(value: 0)
                Task {
                    await hop()
                    done.signal()
                }
                done.wait()
            },
            reactionsPerDispatch: 1, verify: { _ in nil }, teardown: {},
            produce: { count in
                let done = DispatchSemaphore(value: 0)
                Task {
                    for _ in 0..<count { await hop() }
                    done.signal()
                }
                done.wait()
            })
    },
]

/// S1 with typed actions instead of an enum mixer: S1t an action without stored properties (as
/// SCENARIOS.md asks), S1td one that carries an amount, and S1p, for comparison, the seed's way
/// of carrying it: an enum mixer with a payload dictionary.
let actionScenarios: [Scenario] = [
    Scenario(id: "S1p", name: "counter+payload", defaultCount: 1_000_000) { counter in
        counterRig(
            counter, substance: PayloadCounter(),
            dispatch: { Flask.substances(reactTo: CounterMixers.add, payload: ["amount": 1]) })
    },
    Scenario(id: "S1t", name: "counter-action", defaultCount: 1_000_000) { counter in
        counterRig(counter, substance: ActionCounter(), dispatch: { Flask.substances(reactTo: Increment()) })
    },
    Scenario(id: "S1td", name: "counter-action+data", defaultCount: 1_000_000) { counter in
        counterRig(counter, substance: ActionCounter(), dispatch: { Flask.substances(reactTo: Add(amount: 1)) })
    },
    // S1 and S1t with the counter made without a subclass: its bodies stored at creation.
    Scenario(id: "S1d", name: "counter-defined", defaultCount: 1_000_000) { counter in
        counterRig(counter, substance: definedCounter())
    },
    Scenario(id: "S1dt", name: "counter-defined-action", defaultCount: 1_000_000) { counter in
        counterRig(counter, substance: definedCounter(), dispatch: { Flask.substances(reactTo: Increment()) })
    },
]

/// The cost of the tools of docs/tools.md on S1 (not in SCENARIOS.md): the same counter with one
/// middleware that passes everything, and with a mix journal recording every mix.
let toolScenarios: [Scenario] = [
    Scenario(id: "S1m", name: "counter+middleware", defaultCount: 1_000_000) { counter in
        let middleware = PassingMiddleware()
        Flask.bus.use(middleware)
        return counterRig(counter, substance: CounterSubstance(), teardown: { Flask.bus.remove(middleware) })
    },
    Scenario(id: "S1mr", name: "counter+report-reader", defaultCount: 1_000_000) { counter in
        let middleware = ReportReadingMiddleware()
        Flask.bus.use(middleware)
        return counterRig(counter, substance: CounterSubstance(), teardown: { Flask.bus.remove(middleware) })
    },
    // S1j and S1jk with a ring of 1,000 entries: a full journal (an app's after 10,000 mixes) folds
    // the oldest entry into the starting states at each mix, which instructions.sh's 5,000
    // dispatches would not reach with the default 10,000.
    Scenario(id: "S1j", name: "counter+journal", defaultCount: 1_000_000) { counter in
        journalRig(counter, journal: MixJournal(capacity: 1_000))
    },
    // The journal keeping no values of the changes: names, keys and payloads only.
    Scenario(id: "S1jk", name: "counter+journal-keys", defaultCount: 1_000_000) { counter in
        journalRig(counter, journal: MixJournal(capacity: 1_000, recordsChangedValues: false))
    },
]

/// S1 with `journal` recording every mix.
private func journalRig(_ counter: ReactionCounter, journal: MixJournal) -> Rig {
    Flask.bus.use(journal)
    return counterRig(
        counter, substance: CounterSubstance(),
        teardown: {
            Flask.bus.remove(journal)
            journal.clear()
        })
}

/// S2 and S3 with reactors that declare their keys (`reactor.keys`, not in SCENARIOS.md): what the
/// fan-out costs when the bus may skip the reactors whose key did not change.
let declaredKeyScenarios: [Scenario] = [
    Scenario(id: "S2k", name: "wide-10+keys", defaultCount: 1_000_000) { counter in
        wideRig(counter, reactorsPerField: 1, declaringKeys: true)
    },
    Scenario(id: "S3k", name: "fanout-100+keys", defaultCount: 1_000_000) { counter in
        wideRig(counter, reactorsPerField: 10, declaringKeys: true)
    },
    // S3 with declared reactions (`reactor.on(key) { owner, change in }`): the library knows each
    // reactor's key, so only the ten whose field changed are called.
    Scenario(id: "S3d", name: "fanout-100+declared", defaultCount: 1_000_000) { counter in
        wideRig(counter, reactorsPerField: 10, declaringReactions: true)
    },
]

/// The item S8's dispatch number `round` toggles: every item once per `size` dispatches (a
/// round-robin), visited with a stride, so that the changed item lies anywhere in the list as in an
/// app. (Visited in order, a short run changed only the first items, where a comparison that stops
/// at the first difference is cheap: S8 read faster than any app would see it.)
func collectionPosition(_ round: Int, size: Int) -> Int {
    let stride = size % 7_919 == 0 ? 1 : 7_919  // a prime: coprime with size, so every item is visited
    return (round % size) * stride % size
}

/// S8 of SCENARIOS.md: a list of `size` items, one toggled per dispatch, round-robin (see
/// `collectionPosition`), with a reactor on the list. With `big`, S8t: the same edits of a
/// `BigArray` list.
func collectionScenario(size: Int, big: Bool = false) -> Scenario {
    Scenario(
        id: big ? "S8t" : "S8", name: "\(big ? "big-" : "")collection-\(size)",
        defaultCount: big ? 100_000 : max(1_000, min(1_000_000, 200_000_000 / size))
    ) {
        counter in
        let substance: any AnySubstance
        let done: (Int) -> Bool
        let itemCount: () -> Int
        if big {
            let todos = makeBigTodoSubstance()
            (substance, done, itemCount) = (todos, { todos.state.items[$0].done }, { todos.state.items.count })
        } else {
            let todos = TodoSubstance()
            (substance, done, itemCount) = (todos, { todos.state.items[$0].done }, { todos.state.items.count })
        }
        Flask.substances(reactTo: TodoMixers.load, payload: ["size": size])
        settleBus()  // loaded before the reactor is attached and the clock starts
        let rounds = RoundRobin(over: Int.max)
        return oneReactorRig(
            counter, substance: substance, key: "items",
            dispatch: {
                Flask.substances(
                    reactTo: TodoMixers.toggle, payload: ["index": collectionPosition(rounds.next(), size: size)])
            },
            verify: { count in
                for index in [0, size / 2, size - 1] {
                    let toggles = (0..<count).count { collectionPosition($0, size: size) == index }
                    // `done` is true after an odd number of toggles.
                    if done(index) != !toggles.isMultiple(of: 2) {
                        return "item \(index) done is \(done(index)) after \(toggles) toggles"
                    }
                }
                return itemCount() == size ? nil : "\(itemCount()) items"
            })
    }
}

/// The floor under S8: copying a list of `size` items, changing one, and comparing the copy with
/// the original, as a value-typed state must; operations a second.
func collectionFloor(size: Int, count: Int) -> Double {
    let items = (0..<size).map { TodoState.Item(id: $0, title: "item \($0)", done: false) }
    var equal = 0
    let start = now()
    for round in 0..<count {
        var copy = items
        copy[collectionPosition(round, size: size)].done.toggle()
        if copy == items { equal += 1 }
    }
    let elapsed = now() - start
    precondition(equal == 0)
    return Double(count) / (Double(elapsed) / 1e9)
}

/// The sizes of S8 in the full table (`--full`), and in the quick one.
let collectionSizes = [10, 1_000, 100_000]
let quickCollectionSizes = [10, 1_000, 10_000]

/// S8d (not in SCENARIOS.md): a `[String: Int]` of `size` entries, one changed per dispatch,
/// round-robin; the reactor observes another key, so the dictionary is reduced for nobody's sake
/// but its own commit's changes. With `big`, S8dt: the same edits of a `BigDictionary`.
func dictionaryScenario(size: Int, journal: Bool = false, big: Bool = false) -> Scenario {
    Scenario(
        id: big ? "S8dt" : journal ? "S8dj" : "S8d",
        name: "\(big ? "big-" : "")dictionary-\(size)\(journal ? "+journal" : "")",
        defaultCount: big ? 100_000 : max(50, min(1_000_000, 50_000_000 / size))
    ) {
        counter in
        // S8dj: the mix journal recording, with its default settings (issue #51: one-entry edits of
        // a 50,000-entry dictionary cost at most 3x the same edits without it) but a ring of 100
        // entries, so that the run measures a journal that is full, as an app's is after 10,000
        // mixes: each mix recorded then folds the oldest into the starting states.
        let recorder = journal ? MixJournal(capacity: 100) : nil
        if let recorder { Flask.bus.use(recorder) }
        let substance: any AnySubstance
        let entry: (String) -> Int?
        let entryCount: () -> Int
        if big {
            let cache = makeCacheSubstance(BigCacheState.self, name: "big-cache")
            (substance, entry, entryCount) = (cache, { cache.state.entries[$0] }, { cache.state.entries.count })
        } else {
            let cache = makeCacheSubstance(CacheState.self, name: "cache")
            (substance, entry, entryCount) = (cache, { cache.state.entries[$0] }, { cache.state.entries.count })
        }
        Flask.substances(reactTo: CacheMixers.load, payload: ["size": size])
        settleBus()  // loaded before the reactor is attached and the clock starts
        let rounds = RoundRobin(over: Int.max)
        let owner = BenchOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        // Called for every commit (it asks for a key the bumps never change), so that each commit is
        // reduced and delivered.
        reactor.handler = { _, reaction in
            counter.hit()
            reaction.on("loads") { _ in }
        }
        return Rig(
            dispatch: {
                Flask.substances(
                    reactTo: CacheMixers.bump, payload: ["index": collectionPosition(rounds.next(), size: size)])
            },
            reactionsPerDispatch: 1,
            verify: { count in
                for index in [0, size / 2, size - 1] {
                    let bumps = (0..<count).count { collectionPosition($0, size: size) == index }
                    if entry(cacheKey(index)) != bumps {
                        return "entry \(index) is \(entry(cacheKey(index)) ?? -1) after \(bumps) bumps"
                    }
                }
                return entryCount() == size ? nil : "\(entryCount()) entries"
            },
            teardown: {
                Flask.detachReactor(from: owner)
                if let recorder {
                    Flask.bus.remove(recorder)
                    recorder.clear()
                }
            })
    }
}

/// S8do (not in SCENARIOS.md): S8d's edits made in place in an `@Observable` class, watched with
/// `withObservationTracking` re-armed after each change: what one edit costs where nothing is
/// copied or compared, the reference for S8dt.
func observableDictionaryScenario(size: Int) -> Scenario {
    Scenario(
        id: "S8do", name: "observable-dictionary-\(size)", defaultCount: 100_000
    ) { counter in
        let store = ObservableCache()
        store.entries = Dictionary(uniqueKeysWithValues: (0..<size).map { (cacheKey($0), 0) })
        let rounds = RoundRobin(over: Int.max)
        let watching = WatchFlag()
        @Sendable func arm() {
            guard watching.on else { return }
            withObservationTracking {
                _ = store.entries
            } onChange: {
                counter.hit()
                arm()
            }
        }
        arm()
        return Rig(
            dispatch: { store.entries[cacheKey(collectionPosition(rounds.next(), size: size)), default: 0] += 1 },
            reactionsPerDispatch: 1,
            verify: { count in
                for index in [0, size / 2, size - 1] {
                    let bumps = (0..<count).count { collectionPosition($0, size: size) == index }
                    if store.entries[cacheKey(index)] != bumps {
                        return "entry \(index) is \(store.entries[cacheKey(index)] ?? -1) after \(bumps) bumps"
                    }
                }
                return store.entries.count == size ? nil : "\(store.entries.count) entries"
            },
            teardown: { watching.on = false })
    }
}

/// Whether S8do's observer re-arms.
final class WatchFlag: @unchecked Sendable {
    // `@unchecked Sendable`: touched by the benchmark's producer thread only.
    var on = true
}

/// The floor under S8d: copying a dictionary of `size` entries, changing one, and comparing the
/// copy with the original; operations a second.
func dictionaryFloor(size: Int, count: Int) -> Double {
    let entries = Dictionary(uniqueKeysWithValues: (0..<size).map { (cacheKey($0), 0) })
    var equal = 0
    let start = now()
    for round in 0..<count {
        var copy = entries
        copy[cacheKey(collectionPosition(round, size: size)), default: 0] += 1
        if copy == entries { equal += 1 }
    }
    let elapsed = now() - start
    precondition(equal == 0)
    return Double(count) / (Double(elapsed) / 1e9)
}

/// The sizes of S8d in the full table (`--full`), and in the quick one.
let dictionarySizes = [10_000, 100_000, 1_000_000]
let quickDictionarySizes = [1_000, 10_000, 100_000]

/// The sizes of S8t, S8dt and S8do, in both tables: their cost must not grow with the size.
let bigCollectionSizes = [1_000, 10_000, 100_000, 1_000_000]

/// Every scenario the executable knows, in the order of its table.
/// Scale: many reactors on one state, many substances.
let scaleScenarios: [Scenario] = [
    // S3 with ten times the reactors: 100 on each of the ten fields.
    Scenario(id: "S3x", name: "fanout-1000", defaultCount: 50_000) { counter in
        wideRig(counter, reactorsPerField: 100)
    },
    // 1,000 substances, one reactor each; each dispatch mixes one of them in turn (a chain of one
    // step): what a dispatch costs in an app of many substances.
    Scenario(id: "S9", name: "substances-1000", defaultCount: 500_000) { counter in
        let owners = (0..<1_000).map { _ in BenchOwner() }
        let substances = (0..<1_000).map { _ in Substance<CounterState>() }
        let reactors = zip(owners, substances).map { owner, substance in
            let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
            reactor.handler = { _, reaction in reaction.on("counter") { _ in counter.hit() } }
            return reactor
        }
        let turns = RoundRobin(over: 1_000)
        return Rig(
            dispatch: {
                let next = turns.next()
                reactors[next].mix(substances[next]) { $0.prop.counter += 1 }.react()
            },
            reactionsPerDispatch: 1,
            verify: { count in
                let total = substances.reduce(0) { $0 + $1.state.counter }
                return total == count ? nil : "the counters add up to \(total), expected \(count)"
            },
            teardown: { for owner in owners { Flask.detachReactor(from: owner) } })
    },
]

let allScenarios = tableScenarios(collections: collectionSizes, dictionaries: dictionarySizes)

/// The scenarios of a table, with S8 and S8d at the sizes given, S8dj (S8d with the journal)
/// at the two largest, S8t, S8dt and S8do at theirs, and S10 at its three sizes.
func tableScenarios(collections: [Int], dictionaries: [Int]) -> [Scenario] {
    scenarios + declaredKeyScenarios + actionScenarios + concurrencyScenarios + toolScenarios + scaleScenarios
        + collections.map { collectionScenario(size: $0) } + dictionaries.map { dictionaryScenario(size: $0) }
        + dictionaries.suffix(2).map { dictionaryScenario(size: $0, journal: true) }
        + bigCollectionSizes.map { collectionScenario(size: $0, big: true) }
        + bigCollectionSizes.map { dictionaryScenario(size: $0, big: true) }
        + bigCollectionSizes.map(observableDictionaryScenario(size:))
        + durableSizes.map(durableScenario(size:))
}

/// Watches the counter of an observable view as SwiftUI would: `withObservationTracking`, re-armed
/// after each change; the reaction counter shows the last value seen.
@MainActor final class ObservationWatcher {
    private var view: SubstanceObservation<CounterState>?
    private let counter: ReactionCounter

    init(view: SubstanceObservation<CounterState>, counter: ReactionCounter) {
        self.view = view
        self.counter = counter
        arm()
    }

    private func arm() {
        guard let view else { return }
        counter.count = withObservationTracking {
            view.counter
        } onChange: {
            Task { @MainActor in self.arm() }
        }
    }

    func stop() {
        view = nil
    }
}

/// A middleware that looks at every mix and passes it (a gate that lets everything through), and
/// has no `didMix`: the cost of the middleware path itself.
final class PassingMiddleware: FluxMiddleware {
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        event.payload?["forbidden"] == nil ? .pass : .stop(reason: "forbidden")
    }
}

/// A middleware that reads every mix's report (as a logger or a metrics counter does).
final class ReportReadingMiddleware: FluxMiddleware, @unchecked Sendable {
    // `@unchecked Sendable`: `changed` is touched only in `didMix`, on the bus.
    private var changed = 0

    func didMix(_ report: FluxMixReport) {
        changed += report.records.count
    }
}

/// S1's rig: one reactor on `counter`, the increment mixer dispatched (or `dispatch`), and
/// `teardown` run before the reactor is detached.
private func counterRig(
    _ counter: ReactionCounter, substance: Substance<CounterState>, teardown: @escaping () -> Void = {},
    dispatch: @escaping () -> Void = { Flask.substances(reactTo: CounterMixers.increment) }
) -> Rig {
    oneReactorRig(
        counter, substance: substance, key: "counter", dispatch: dispatch,
        verify: { count in substance.state.counter == count ? nil : "counter is \(substance.state.counter)" },
        teardown: teardown)
}

/// One reactor on `key` of `substance`, counting its reactions; `teardown` runs before the reactor
/// is detached.
func oneReactorRig(
    _ counter: ReactionCounter, substance: any AnySubstance, key: String, dispatch: @escaping () -> Void,
    verify: @escaping (Int) -> String?, teardown: @escaping () -> Void = {}
) -> Rig {
    let owner = BenchOwner()
    let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
    reactor.handler = { _, reaction in reaction.on(key) { _ in counter.hit() } }
    return Rig(
        dispatch: dispatch,
        reactionsPerDispatch: 1,
        verify: verify,
        teardown: {
            teardown()
            Flask.detachReactor(from: owner)
        })
}

/// S2 and S3: ten fields, a mixer per field dispatched round-robin, `reactorsPerField` reactors on
/// each field.
/// With `declaringKeys`, each reactor also declares its key (`reactor.keys`), so that the bus skips
/// the reactors whose key did not change.
private func wideRig(
    _ counter: ReactionCounter, reactorsPerField: Int, declaringKeys: Bool = false, declaringReactions: Bool = false
) -> Rig {
    let owners = (0..<(10 * reactorsPerField)).map { _ in BenchOwner() }
    let substance = WideSubstance()
    let keys = WideMixers.allCases.map(\.rawValue)
    for (index, owner) in owners.enumerated() {
        let key = keys[index % 10]
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        if declaringReactions {
            reactor.on(key) { _, _ in counter.hit() }
            continue
        }
        if declaringKeys { reactor.keys = [key] }
        reactor.handler = { _, reaction in reaction.on(key) { _ in counter.hit() } }
    }
    let mixers = WideMixers.allCases
    let turns = RoundRobin(over: mixers.count)
    return Rig(
        dispatch: { Flask.substances(reactTo: mixers[turns.next()]) },
        reactionsPerDispatch: reactorsPerField,
        verify: { count in
            let state = substance.state
            let expected = count / 10 + (count % 10 > 0 ? 1 : 0)
            return state.f0 == expected ? nil : "f0 is \(state.f0), expected \(expected)"
        },
        teardown: { for owner in owners { Flask.detachReactor(from: owner) } })
}
