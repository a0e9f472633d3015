import Archive
import FlaskTestSupport
import FlaskTesting
import FluxBus
import Foundation
import Testing

@testable import Substances

struct ArchivedState: State {
    var counter = 0
    var object = FlaskRef<NSObject>(nil)
    var info: FlaskDictRef?
}

/// Overrides every archive hook, as the seed shows: the original declared them in an extension,
/// so overriding them had no effect.
final class CustomArchived: Substance<ArchivedState>, @unchecked Sendable {
    static let archiver = Archiver(store: InMemoryArchiveStore())
    static let disabled = LockedFlag()

    override func archiveKeySpace() -> String { "9" }
    override func archiveKey() -> String { "custom.\(archiveKeySpace()).\(name())" }
    override func archiveDelay() -> Double { 0 }
    override func archiveDisabled() -> Bool { CustomArchived.disabled.value }
    override func archiver() -> Archiver { CustomArchived.archiver }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return flag
        }
        set {
            lock.lock()
            flag = newValue
            lock.unlock()
        }
    }
}

enum ArchiveTestMixers: SubstanceMixer {
    case bump
}

@Suite("Substances that archive", .serialized)
struct SubstanceArchiveTests {
    @Test("the overrides of the four archive hooks are used")
    func overridesAreUsed() async throws {
        let bus = Flux()
        let name = "over-\(UUID().uuidString)"
        let substance = CustomArchived(name: name, archive: true, bus: bus)
        #expect(substance.archiveKey() == "custom.9.\(name)")
        await substance.mixAndWait { $0.prop.counter = 5 }
        CustomArchived.archiver.flush()
        let store = try #require(CustomArchived.archiver.store as? InMemoryArchiveStore)
        #expect(try store.data(forKey: "custom.9.\(name)") != nil)
        #expect(try store.data(forKey: "Fx.1.\(name)") == nil)
        let restored = CustomArchived(name: name, archive: true, bus: bus)
        #expect(restored.state.counter == 5)

        CustomArchived.disabled.value = true
        defer { CustomArchived.disabled.value = false }
        await restored.mixAndWait { $0.prop.counter = 6 }
        CustomArchived.archiver.flush()
        #expect(CustomArchived(name: name, archive: true, bus: bus).state.counter == 5)
    }

    @Test("archive settings given at creation choose key, key space and archiver, without a subclass")
    func settingsWithoutSubclass() async throws {
        let bus = Flux()
        let store = InMemoryArchiveStore()
        let archiver = Archiver(store: store)
        let name = "settings-\(UUID().uuidString)"
        let spaced = Substance<ArchivedState>(
            name: name, archive: true, archiveSettings: ArchiveSettings(keySpace: "7", delay: 0, archiver: archiver),
            bus: bus)
        #expect(spaced.archiveKey() == "Fx.7.\(name)")
        #expect(spaced.archiveDelay() == 0)
        #expect(spaced.archiveMaxDelay() == Archiver.defaultMaxDelay)
        await spaced.mixAndWait { $0.prop.counter = 3 }
        try await spaced.stored()
        #expect(try store.data(forKey: "Fx.7.\(name)") != nil)

        let keyed = ReactiveSubstance<ArchivedState, ArchiveTestMixers>(
            name: "\(name)-keyed", archive: true,
            archiveSettings: ArchiveSettings(key: "drafts.v2", delay: 0, archiver: archiver), bus: bus
        ) { define in
            define(mix: .bump) { substance, _, react, _ in
                substance.prop.counter += 1
                react()
            }
        }
        #expect(keyed.archiveKey() == "drafts.v2")
        _ = await bus.dispatchAndWait(ArchiveTestMixers.bump.busName)
        try await keyed.stored()
        #expect(try store.data(forKey: "drafts.v2") != nil)
        #expect(try store.data(forKey: "Fx.1.\(name)-keyed") == nil)
        let restored = Substance<ArchivedState>(
            name: "\(name)-again", archive: true,
            archiveSettings: ArchiveSettings(key: "drafts.v2", archiver: archiver),
            bus: bus)
        #expect(restored.state.counter == 1)
    }

    /// Holds its commit between publishing the state and scheduling its archive write (its
    /// archive key is asked for there, on the bus), once armed.
    final class HeldBeforeScheduling: Substance<ArchivedState>, @unchecked Sendable {
        let armed = LockedFlag()
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        override func archiveKey() -> String {
            if bus.isCurrent, armed.value {
                armed.value = false
                reached.signal()
                release.wait()
            }
            return "held"
        }
    }

    @Test("stored() called by one who saw a commit's state returns once that state is written")
    func storedCoversWhatWasSeen() async throws {
        // Found from outside: with four callers at once, one saw another's commit in `state`,
        // acknowledged it after `stored()`, and a crash lost it: the state is published before
        // its write is scheduled, and `stored()` waited for what was scheduled.
        let store = InMemoryArchiveStore()
        let substance = HeldBeforeScheduling(
            name: "held", archive: true, archiveSettings: ArchiveSettings(delay: 60, archiver: Archiver(store: store)),
            bus: Flux())
        await substance.mixAndWait { $0.prop.counter = 1 }
        try await substance.stored()
        substance.armed.value = true
        substance.bus.perform { [substance] in
            substance.beginTransaction()
            substance.prop.counter = 2
            if let changes = substance.commitTransaction() { substance.deliver(changes, lock: nil) }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                substance.reached.wait()
                continuation.resume()
            }
        }
        #expect(substance.state.counter == 2, "published, its write not scheduled yet")
        // Let go later: a `stored()` that returned before then would have returned without the
        // commit it was called after (the delay can only make this test miss that, never fail).
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { substance.release.signal() }
        try await substance.stored()
        let written = try #require(try store.data(forKey: "held"))
        #expect(try JSONDecoder().decode(ArchivedState.self, from: written).counter == 2)
    }

    @Test("callers at once: after stored(), what each saw in state is stored, whoever committed it")
    func storedCoversWhatEachSaw() async throws {
        let store = InMemoryArchiveStore()
        let substance = Substance<ArchivedState>(
            name: "seen", archive: true,
            archiveSettings: ArchiveSettings(key: "seen", delay: 60, archiver: Archiver(store: store)), bus: Flux())
        let behind = Recorder<String>()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<100 {
                        await substance.mixAndWait { $0.prop.counter += 1 }
                        let seen = substance.state.counter
                        do {
                            try await substance.stored()
                            let data = try store.data(forKey: "seen") ?? Data()
                            let stored = try JSONDecoder().decode(ArchivedState.self, from: data).counter
                            if stored < seen { behind.append("saw \(seen), stored \(stored)") }
                        } catch {
                            behind.append("\(error)")
                        }
                    }
                }
            }
        }
        #expect(behind.all.isEmpty, "\(behind.all.prefix(3))")
        #expect(substance.state.counter == 400)
    }

    @Test("the default archive key follows a key space and a name that change")
    func defaultKeyFollowsItsParts() async throws {
        // The default key is kept between commits; it must still be rebuilt when an overridden
        // key space or name returns something else.
        let bus = Flux()
        let store = InMemoryArchiveStore()
        final class Moving: Substance<ArchivedState>, @unchecked Sendable {
            nonisolated(unsafe) static var archiverInUse: Archiver?
            let space = LockedFlag()
            let renamed = LockedFlag()
            override func archiver() -> Archiver { Moving.archiverInUse! }
            override func archiveDelay() -> Double { 0 }
            override func archiveKeySpace() -> String { space.value ? "2" : "1" }
            override func name() -> String { renamed.value ? "moved" : "moving" }
        }
        let archiver = Archiver(store: store)
        Moving.archiverInUse = archiver
        let substance = Moving(archive: true, bus: bus)
        #expect(substance.archiveKey() == "Fx.1.moving")
        await substance.mixAndWait { $0.prop.counter = 1 }
        substance.space.value = true
        #expect(substance.archiveKey() == "Fx.2.moving")
        await substance.mixAndWait { $0.prop.counter = 2 }
        substance.renamed.value = true
        await substance.mixAndWait { $0.prop.counter = 3 }
        archiver.flush()
        #expect(Set(store.writes) == ["Fx.1.moving", "Fx.2.moving", "Fx.2.moved"])
        #expect(substance.archiveKey() == "Fx.2.moved")
    }

    @Test("shouldArchive turns archiving on and off; archiveNowAndWait writes; purgeArchive deletes")
    func lifecycle() async throws {
        let bus = Flux()
        let store = InMemoryArchiveStore()
        let writtenOnBus = Recorder<Bool>()
        store.whenWritten { writtenOnBus.append(bus.isCurrent) }
        let archiver = Archiver(store: store)
        final class Local: Substance<ArchivedState>, @unchecked Sendable {
            nonisolated(unsafe) static var archiverInUse: Archiver?
            override func archiver() -> Archiver { Local.archiverInUse! }
            override func archiveDelay() -> Double { 0.01 }
        }
        Local.archiverInUse = archiver
        let name = "life-\(UUID().uuidString)"
        let substance = Local(name: name, archive: false, bus: bus)
        await substance.mixAndWait { $0.prop.counter = 1 }
        archiver.flush()
        #expect(store.writes.count == 0)
        substance.shouldArchive = true
        await substance.mixAndWait { $0.prop.counter = 2 }
        archiver.flush()
        #expect(store.writes == ["Fx.1.\(name)"])
        #expect(writtenOnBus.all == [false])
        substance.shouldArchive = false
        await substance.mixAndWait { $0.prop.counter = 3 }
        // Written when archiveNowAndWait returns: no flush, whatever the debounce.
        try await substance.archiveNowAndWait()
        #expect(Local(name: name, archive: true, bus: bus).state.counter == 3)
        substance.purgeArchive()
        #expect(Local(name: name, archive: true, bus: bus).state.counter == 0)
    }

    @Test("objects are archived as nil; dictionaries round-trip with their nested keys")
    func whatIsArchived() async throws {
        let bus = Flux()
        let name = "what-\(UUID().uuidString)"
        let substance = CustomArchived(name: name, archive: true, bus: bus)
        await substance.mixAndWait {
            $0.prop.object = FlaskRef(NSObject())
            $0.prop.info = FlaskDictRef(["nest": ["data": "some", "n": 2], "flag": true])
        }
        CustomArchived.archiver.flush()
        let restored = CustomArchived(name: name, archive: true, bus: bus)
        #expect(restored.state.object.object == nil)
        #expect(restored.state.info?["nest.data"] as? String == "some")
        #expect(restored.state.info?["nest.n"] as? Int == 2)
        #expect(restored.state.info?["flag"] as? Bool == true)
        #expect(restored.state.info == substance.state.info)
    }

    @Test("a corrupt archive restores the defaults, keeps the bytes aside and is reported")
    func corruptArchive() throws {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic>()
        bus.diagnostics = { reports.append($0) }
        let name = "corrupt-\(UUID().uuidString)"
        let store = try #require(CustomArchived.archiver.store as? InMemoryArchiveStore)
        try store.set(Data("{\"counter\": 4, \"obj".utf8), forKey: "custom.9.\(name)")
        let substance = CustomArchived(name: name, archive: true, bus: bus)
        #expect(substance.state.counter == 0)
        #expect(reports.all.map(\.code) == [.archiveUnreadable])
        #expect(try store.data(forKey: "custom.9.\(name).unreadable") != nil)
    }
}
