import FluxBus
import Testing

@testable import Substances

/// Seventy `Int`s (entries 0 to 69, so `f0` and `f64` share a bit of the changed-entries mask)
/// and two keys longer than 15 bytes, which the key table does not know by their bits.
struct SeventyState: State {
    var f0 = 0
    var f1 = 0
    var f2 = 0
    var f3 = 0
    var f4 = 0
    var f5 = 0
    var f6 = 0
    var f7 = 0
    var f8 = 0
    var f9 = 0
    var f10 = 0
    var f11 = 0
    var f12 = 0
    var f13 = 0
    var f14 = 0
    var f15 = 0
    var f16 = 0
    var f17 = 0
    var f18 = 0
    var f19 = 0
    var f20 = 0
    var f21 = 0
    var f22 = 0
    var f23 = 0
    var f24 = 0
    var f25 = 0
    var f26 = 0
    var f27 = 0
    var f28 = 0
    var f29 = 0
    var f30 = 0
    var f31 = 0
    var f32 = 0
    var f33 = 0
    var f34 = 0
    var f35 = 0
    var f36 = 0
    var f37 = 0
    var f38 = 0
    var f39 = 0
    var f40 = 0
    var f41 = 0
    var f42 = 0
    var f43 = 0
    var f44 = 0
    var f45 = 0
    var f46 = 0
    var f47 = 0
    var f48 = 0
    var f49 = 0
    var f50 = 0
    var f51 = 0
    var f52 = 0
    var f53 = 0
    var f54 = 0
    var f55 = 0
    var f56 = 0
    var f57 = 0
    var f58 = 0
    var f59 = 0
    var f60 = 0
    var f61 = 0
    var f62 = 0
    var f63 = 0
    var f64 = 0
    var f65 = 0
    var f66 = 0
    var f67 = 0
    var f68 = 0
    var f69 = 0
    var aVeryLongPropertyName = 0
    var anotherLongPropertyName = 0
}

@Suite("Changes: looking a key up, on every path")
struct KeyLookUpTests {
    /// Changes of `SeventyState` with `f1`...`f5`, `f64` and `aVeryLongPropertyName` changed: seven
    /// entries, so some lie past the four kept inline.
    func sevenChanged() throws -> SubstanceChanges {
        var new = SeventyState()
        new.f1 = 1
        new.f2 = 1
        new.f3 = 1
        new.f4 = 1
        new.f5 = 1
        new.f64 = 1
        new.aVeryLongPropertyName = 1
        return try #require(changes(SeventyState(), new))
    }

    @Test("each changed key is found at its own slot, among the first four entries or past them")
    func changedKeys() throws {
        let changes = try sevenChanged()
        let keys = ["f1", "f2", "f3", "f4", "f5", "f64", "aVeryLongPropertyName"]
        #expect(changes.count == keys.count)
        for key in keys {
            guard case .changed(let slot) = changes.lookUp(key) else {
                Issue.record("\(key) not found changed")
                continue
            }
            #expect(changes.key(at: slot) == key)
        }
    }

    @Test("an unchanged key is unchanged, also when its bit is set by another entry, and also when long")
    func unchangedKeys() throws {
        let changes = try sevenChanged()
        for key in ["f0", "f6", "f69", "anotherLongPropertyName"] {
            guard case .unchanged = changes.lookUp(key) else {
                Issue.record("\(key) not unchanged")
                continue
            }
        }
    }

    @Test("a key the state does not have is not an entry")
    func unknownKeys() throws {
        let changes = try sevenChanged()
        for key in ["nope", "a key the state certainly does not have"] {
            guard case .notAnEntry = changes.lookUp(key) else {
                Issue.record("\(key) found")
                continue
            }
        }
    }
}
