import FlaskAPI
import Foundation
import Observation

// The states of the scenarios in ../shared/bench/SCENARIOS.md, written as a user would.

struct CounterState: State {
    var counter = 0
}

enum CounterMixers: String, SubstanceMixer {
    case increment
    /// Adds the payload's `amount` (S1p).
    case add
}

final class CounterSubstance: ReactiveSubstance<CounterState, CounterMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .increment) { _, react, _ in
            self.prop.counter += 1
            react()
        }
    }
}

/// S1p's counter: S1's, incremented by an enum mixer with a payload.
final class PayloadCounter: ReactiveSubstance<CounterState, CounterMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .add) { payload, react, _ in
            self.prop.counter += payload?["amount"] as? Int ?? 0
            react()
        }
    }
}

/// S1t's typed action: no stored properties, like S1's enum mixer without a payload.
struct Increment: FlaskAction {}

/// S1td's typed action: with data.
struct Add: FlaskAction {
    let amount: Int
}

/// S1's counter, incremented by typed actions.
final class ActionCounter: ReactiveSubstance<CounterState, CounterMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(Increment.self) { _, react, _ in
            self.prop.counter += 1
            react()
        }
        define(Add.self) { add, react, _ in
            self.prop.counter += add.amount
            react()
        }
    }
}

/// S1d's counter: S1's, made without a subclass (S1dt dispatches the typed action).
func definedCounter() -> ReactiveSubstance<CounterState, CounterMixers> {
    ReactiveSubstance<CounterState, CounterMixers> { define in
        define(mix: .increment) { counter, _, react, _ in
            counter.prop.counter += 1
            react()
        }
        define(Increment.self) { counter, _, react, _ in
            counter.prop.counter += 1
            react()
        }
    }
}

struct WideState: State {
    var f0 = 0
    var f1 = 0
    var f2 = 0
    var f3 = 0
    var f4 = 0
    var f5 = "a"
    var f6 = "a"
    var f7 = "a"
    var f8 = "a"
    var f9 = "a"
}

enum WideMixers: String, SubstanceMixer, CaseIterable {
    case f0, f1, f2, f3, f4, f5, f6, f7, f8, f9
}

final class WideSubstance: ReactiveSubstance<WideState, WideMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .f0) { _, react, _ in
            self.prop.f0 += 1
            react()
        }
        define(mix: .f1) { _, react, _ in
            self.prop.f1 += 1
            react()
        }
        define(mix: .f2) { _, react, _ in
            self.prop.f2 += 1
            react()
        }
        define(mix: .f3) { _, react, _ in
            self.prop.f3 += 1
            react()
        }
        define(mix: .f4) { _, react, _ in
            self.prop.f4 += 1
            react()
        }
        define(mix: .f5) { _, react, _ in
            self.prop.f5 = self.prop.f5 == "a" ? "b" : "a"
            react()
        }
        define(mix: .f6) { _, react, _ in
            self.prop.f6 = self.prop.f6 == "a" ? "b" : "a"
            react()
        }
        define(mix: .f7) { _, react, _ in
            self.prop.f7 = self.prop.f7 == "a" ? "b" : "a"
            react()
        }
        define(mix: .f8) { _, react, _ in
            self.prop.f8 = self.prop.f8 == "a" ? "b" : "a"
            react()
        }
        define(mix: .f9) { _, react, _ in
            self.prop.f9 = self.prop.f9 == "a" ? "b" : "a"
            react()
        }
    }
}

struct NestedState: State {
    struct C: Codable {
        var leaf = 0
        var note = "c"
        var flag = false
    }
    struct B: Codable {
        var c = C()
        var label = "b"
        var count = 1
    }
    struct A: Codable {
        var b = B()
        var title = "a"
        var ratio = 0.5
    }
    var a = A()
    var top = 0
    var name = "nested"
}

enum NestedMixers: String, SubstanceMixer {
    case incrementLeaf
}

final class NestedSubstance: ReactiveSubstance<NestedState, NestedMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .incrementLeaf) { _, react, _ in
            self.prop.a.b.c.leaf += 1
            react()
        }
    }
}

enum HundredMixers: String, SubstanceMixer {
    case incrementFirst
}

final class HundredSubstance: ReactiveSubstance<HundredState, HundredMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .incrementFirst) { _, react, _ in
            self.prop.f0 += 1
            react()
        }
    }
}

/// S1's substance with archiving on, to a file store in a temporary directory (for S1r).
final class ArchivedCounter: ReactiveSubstance<CounterState, CounterMixers>, @unchecked Sendable {
    static let fileArchiver = Archiver(
        store: try! FileArchiveStore(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("flask-bench-archives")))

    override func archiver() -> Archiver { ArchivedCounter.fileArchiver }

    override func defineMixers() {
        define(mix: .increment) { _, react, _ in
            self.prop.counter += 1
            react()
        }
    }
}

/// A state of about 1 MB, for the restore probe.
struct LargeState: State {
    var rows: [String] = []
    var total = 0
}

/// S8's state: a list of items, one toggled per dispatch.
struct TodoState: State {
    struct Item: Codable, Equatable {
        var id: Int
        var title: String
        var done: Bool
    }
    var items: [Item] = []
}

enum TodoMixers: String, SubstanceMixer {
    /// Fills the list with the payload's `size` items.
    case load
    /// Flips `done` of the item at the payload's `index`.
    case toggle
}

final class TodoSubstance: ReactiveSubstance<TodoState, TodoMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .load) { payload, react, _ in
            let size = payload?["size"] as? Int ?? 0
            self.prop.items = (0..<size).map { TodoState.Item(id: $0, title: "item \($0)", done: false) }
            react()
        }
        define(mix: .toggle) { payload, react, _ in
            let index = payload?["index"] as? Int ?? 0
            self.prop.items[index].done.toggle()
            react()
        }
    }
}

/// S8d's state: a dictionary of counters by name (a cache by id), one changed per dispatch, and a
/// count beside it that the scenario's reactor observes: the dictionary itself is not observed.
struct CacheState: State {
    var entries: [String: Int] = [:]
    var loads = 0
}

enum CacheMixers: String, SubstanceMixer {
    /// Fills the dictionary with the payload's `size` entries.
    case load
    /// Adds one to the entry of the payload's `index`.
    case bump
}

/// The key of S8d's entry `index`: short, as ids are (a string stored inline).
func cacheKey(_ index: Int) -> String { "k\(index)" }

/// S8d's and S8dt's states: a dictionary of `size` counters, and how many loads filled it.
protocol CacheBenchState: State {
    var loads: Int { get set }
    /// Fills the dictionary with `size` entries at zero.
    mutating func fill(_ size: Int)
    /// Adds one to the entry under `key`.
    mutating func bump(_ key: String)
}

extension CacheState: CacheBenchState {
    mutating func fill(_ size: Int) { entries = Dictionary(uniqueKeysWithValues: (0..<size).map { (cacheKey($0), 0) }) }
    mutating func bump(_ key: String) { entries[key, default: 0] += 1 }
}

/// S8d's and S8dt's substance, of either state.
func makeCacheSubstance<S: CacheBenchState>(_ type: S.Type, name: String) -> ReactiveSubstance<S, CacheMixers> {
    ReactiveSubstance<S, CacheMixers>(name: name) { define in
        define(mix: .load) { cache, payload, react, _ in
            cache.prop.fill(payload?["size"] as? Int ?? 0)
            cache.prop.loads += 1
            react()
        }
        define(mix: .bump) { cache, payload, react, _ in
            cache.prop.bump(cacheKey(payload?["index"] as? Int ?? 0))
            react()
        }
    }
}

/// S8t's state: S8's list as a `BigArray`, one item toggled per dispatch.
struct BigTodoState: State {
    var items: BigArray<TodoState.Item> = []
}

func makeBigTodoSubstance() -> ReactiveSubstance<BigTodoState, TodoMixers> {
    ReactiveSubstance<BigTodoState, TodoMixers>(name: "big-todos") { define in
        define(mix: .load) { todos, payload, react, _ in
            let size = payload?["size"] as? Int ?? 0
            todos.prop.items = BigArray((0..<size).map { TodoState.Item(id: $0, title: "item \($0)", done: false) })
            react()
        }
        define(mix: .toggle) { todos, payload, react, _ in
            let index = payload?["index"] as? Int ?? 0
            todos.prop.items[index].done.toggle()
            react()
        }
    }
}

/// S8dt's state: S8d's dictionary as a `BigDictionary`, one entry changed per dispatch.
struct BigCacheState: State {
    var entries: BigDictionary<String, Int> = [:]
    var loads = 0
}

extension BigCacheState: CacheBenchState {
    mutating func fill(_ size: Int) {
        entries = BigDictionary(Dictionary(uniqueKeysWithValues: (0..<size).map { (cacheKey($0), 0) }))
    }
    mutating func bump(_ key: String) { entries[key, default: 0] += 1 }
}

/// S8do's store: S8d's dictionary in an `@Observable` class, changed in place (no copy, no
/// comparison; an observer is told that `entries` will change, not which entry): the reference a
/// one-entry edit of a big collection is measured against.
@Observable final class ObservableCache: @unchecked Sendable {
    // `@unchecked Sendable`: touched by the benchmark's one producer thread only.
    var entries: [String: Int] = [:]
}
