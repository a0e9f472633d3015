// A substance made the new way (no subclass) whose mixer keeps state of its own in a
// non-Sendable object: the body runs on the bus while the maker still holds the object.
// Expected: "capture of 'cache' with non-Sendable type 'Cache' in a '@Sendable' closure".
import FlaskAPI

struct ListState: State {
    var items: [Int] = []
}

enum ListMixers: SubstanceMixer { case add }

final class Cache {
    var recent: [Int] = []
}

func makeList() -> (ReactiveSubstance<ListState, ListMixers>, Cache) {
    let cache = Cache()
    let list = ReactiveSubstance<ListState, ListMixers>(name: "list") { define in
        define(mix: .add) { list, _, react, _ in
            cache.recent.append(list.state.items.count)
            list.prop.items.append(1)
            react()
        }
    }
    return (list, cache)
}
