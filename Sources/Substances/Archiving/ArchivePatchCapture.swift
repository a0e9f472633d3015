import Archive
import FlaskLocking
import Foundation
import Synchronization

/// What a commit changed, as an archive patch (`ArchivePatch`): the places of the state that
/// changed (`PatchPlaces`) and the values the state's own encoding writes there
/// (`PropertyWiseEncoding`), taken on the bus when the commit is made and encoded on the archive
/// thread. What lets a durable write cost the change (issue #53): a one-entry edit of a
/// 50,000-entry dictionary patches that entry.
///
/// The values are taken on the bus, not the state kept for the archive thread to take them from:
/// a kept state shares its collections' storage, so the next commit's edit of one would copy the
/// whole collection, and a batch of pending patches held a copy each (scenario S10's memory grew
/// with every request; figures in docs/history/performance-log.md).
struct ArchivePatchCapture: Sendable {
    /// Parts of a committed state, which is `Sendable`, held as `any Encodable`; nothing mutates them.
    private let operations: UncheckedSendable<[PropertyWiseEncoding.Operation]>

    /// The patch of `changes` (nil: nothing changed) to `state` (the state committed), or nil when
    /// the state's encoding is not property by property, or a change is not a place the patch can set.
    init?<S: State>(_ changes: SubstanceChanges?, of state: S, plan: ReductionPlan) {
        guard !plan.usesCodablePath else { return nil }
        var places = PatchPlaces()
        if let changes {
            guard let changed = PatchPlaces(changes, plan: plan) else { return nil }
            places = changed
        }
        guard let operations = PropertyWiseEncoding.operations(of: state, plan: plan, places: places)
        else { return nil }
        self.operations = UncheckedSendable(operations)
    }

    /// Whether the encoding of `state` is property by property (see `PropertyWiseEncoding`): a
    /// whole write of it may be followed by patches.
    static func encodesByProperty<S: State>(_ state: S, plan: ReductionPlan) -> Bool {
        !plan.usesCodablePath && PropertyWiseEncoding.operations(of: state, plan: plan, places: PatchPlaces()) != nil
    }

    /// The patch, encoded (on the archive thread): each value by itself, as the state's encoding
    /// writes it in place.
    func patch() throws -> ArchivePatch {
        let encoder = ArchiveEncoder()
        return ArchivePatch(
            try operations.value.map { operation in
                switch operation {
                case .set(let path, let value): .set(path: path, json: try encoder.encode(value))
                case .remove(let path): .remove(path: path)
                }
            })
    }
}

/// Whether a substance's archive writes are patches: learned from each whole encoding of its
/// state (on the archive thread), read at every commit (on the bus) without a lock.
///
/// Patches pay only for a big value: finding a commit's patch runs the state's `encode(to:)`
/// through a checking encoder on the bus, several times a small commit's own cost (scenario S1r,
/// docs/performance.md), while a whole write of a small value costs the bus nothing and the
/// archive thread little. So a value whose JSON is under
/// ``Archiver/minimumPatchingBytes`` is written whole. Both ways store the same value.
///
/// And patches are exact only when every state they go from and to encodes property by property
/// (`PropertyWiseEncoding`): each committed state is checked on the bus as its patch is taken, and
/// each state written whole is checked here before its size lets patches follow it (a state whose
/// encoding is derived can look property by property in one state and not in the next: a price
/// written times a rate of 1). The first one found not to be makes every later write whole.
final class ArchivePatching: Sendable {
    private let large = Atomic(false)
    private let whole = Atomic(false)

    /// Whether the commit made now is patched (when the store keeps logs).
    var patches: Bool { large.load(ordering: .acquiring) && !whole.load(ordering: .relaxed) }

    /// Every write is whole from now on: an encoding was found not to be property by property.
    func stop() { whole.store(true, ordering: .relaxed) }

    /// Learns from a whole encoding of `bytes` for `archiver`, whose state `encodesByProperty`
    /// checks (only when patches would follow it), before patches may follow it.
    func learn(fromWhole bytes: Int, threshold: LockedValue<Int>, encodesByProperty: () -> Bool) {
        let isLarge = bytes >= threshold.withLock { $0 }
        if isLarge && !whole.load(ordering: .relaxed) && !encodesByProperty() { stop() }
        // Released after `stop()`: a commit that sees the size sees the stop too.
        large.store(isLarge, ordering: .releasing)
    }
}
