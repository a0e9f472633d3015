import FlaskTestSupport
import FluxBus
import Testing

@testable import Substances

/// Six fields, so that observers can want different keys.
struct SixFields: State {
    var a = 0
    var b = 0
    var c = 0
    var d = 0
    var e = 0
    var f = 0
}

/// Records its id when a commit reaches it.
private final class Tagged: SubstanceObserver {
    let id: Int
    let order: Recorder<Int>

    init(id: Int, order: Recorder<Int>) {
        self.id = id
        self.order = order
    }

    func didCommit(_ commit: Commit) {
        order.append(id)
    }
}

@Suite("Substances: the bound observers' list and its index")
struct ObserverListTests {
    /// A commit of one key reaches, in binding order, exactly the observers that want it: found
    /// through the list's index once enough observers are bound (and by a scan when most want
    /// every commit), whatever binds, unbinds and interests changed in between.
    @Test("commits reach exactly the observers that want them, in binding order, through the index or a scan")
    func indexMatchesAScan() async {
        let bus = Flux()
        let substance = Substance<SixFields>(bus: bus)
        let keys = ["a", "b", "c", "d", "e", "f"]
        let order = Recorder<Int>()
        var random = SeededRandom(seed: 7)
        // id -> the keys it wants (nil: every commit), as the model says.
        var wants: [Int: [String]?] = [:]
        var observers: [Int: Tagged] = [:]
        var nextID = 0
        func bindOne() {
            let observer = Tagged(id: nextID, order: order)
            observers[nextID] = observer
            substance.bind(observer)
            let interest: [String]? = Int(random.next() % 4) == 0 ? nil : [keys[Int(random.next() % 6)]]
            substance.setInterest(of: observer, keys: interest)
            wants[nextID] = .some(interest)
            nextID += 1
        }
        for _ in 0..<60 { bindOne() }
        for round in 0..<40 {
            let key = keys[Int(random.next() % 6)]
            order.removeAll()
            await substance.mixAndWait { substance in
                switch key {
                case "a": substance.prop.a += 1
                case "b": substance.prop.b += 1
                case "c": substance.prop.c += 1
                case "d": substance.prop.d += 1
                case "e": substance.prop.e += 1
                default: substance.prop.f += 1
                }
            }
            let expected = wants.filter { $0.value == nil || $0.value!.contains(key) }.map(\.key).sorted()
            #expect(order.all == expected, "round \(round), key \(key)")
            // Change the list between commits: unbind some, bind others, change an interest.
            switch Int(random.next() % 3) {
            case 0:
                if let id = wants.keys.sorted().randomElement(using: &random) {
                    substance.unbind(observers[id]!)
                    wants.removeValue(forKey: id)
                    observers[id] = nil
                }
            case 1:
                bindOne()
            default:
                if let id = wants.keys.sorted().randomElement(using: &random) {
                    let interest: [String]? = Int(random.next() % 2) == 0 ? nil : [keys[Int(random.next() % 6)]]
                    substance.setInterest(of: observers[id]!, keys: interest)
                    wants[id] = .some(interest)
                }
            }
        }
    }

    @Test("with most observers wanting every commit, every one of them is reached, in order")
    func mostWantEveryCommit() async {
        let bus = Flux()
        let substance = Substance<SixFields>(bus: bus)
        let order = Recorder<Int>()
        let observers = (0..<30).map { Tagged(id: $0, order: order) }
        for observer in observers { substance.bind(observer) }
        for observer in observers where observer.id % 10 == 3 { substance.setInterest(of: observer, keys: ["b"]) }
        await substance.mixAndWait { $0.prop.a += 1 }
        #expect(order.all == (0..<30).filter { $0 % 10 != 3 })
    }
}
