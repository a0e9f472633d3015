import Archive
import FluxBus

/// What every substance is, whatever its state type: for reactors, reactions and chains.
///
/// Its transactions are not part of it: they are the bus's business (`Substance` runs them for
/// mixers, chain steps, rollbacks and undo, on the bus only).
public protocol AnySubstance: AnyObject, Sendable {
    /// The substance's name: the one given at creation, or a unique generated one.
    func name() -> String
    /// The bus the substance mixes on.
    var bus: Flux { get }
    /// The state type's name, for diagnostics.
    var stateTypeName: String { get }

    /// Registers a receiver of this substance's commits. Takes effect before any work item that
    /// has not started yet; the substance holds the observer until ``unbind(_:)``.
    func bind(_ observer: any SubstanceObserver)
    /// Limits a bound observer to the commits that change one of `keys` (or a key below one) and
    /// the commits that hand over a lock; nil gives it every commit again. Keys this state does
    /// not have are ignored; a dictionary sub-key counts as the property that holds it. Takes
    /// effect before any work item that has not started yet; does nothing for an observer that is
    /// not bound (so that it cannot undo an ``unbind(_:)`` that came first).
    func setInterest(of observer: any SubstanceObserver, keys: [String]?)
    /// Removes a receiver registered with ``bind(_:)``.
    func unbind(_ observer: any SubstanceObserver)

    /// Whether `key` names something in the state (for diagnostics of `reaction.on(key)`).
    func isValid(key: String) -> Bool
}

/// A receiver of a substance's commits: reactors implement it, and so do tools (an undo history,
/// a change stream, a view's observation, a journal).
///
/// ```swift
/// final class Audit: SubstanceObserver {
///     func didCommit(_ commit: Commit) {
///         print(commit.mix, commit.keys, commit.origin.map { "\($0)" } ?? "")
///     }
/// }
/// ```
public protocol SubstanceObserver: AnyObject, Sendable {
    /// Called on the bus after a commit that changed something, before the next work item, with
    /// the commit's record.
    func didCommit(_ commit: Commit)
    /// The older spelling of ``didCommit(_:)``, with the record's parts as parameters.
    @available(*, deprecated, message: "implement didCommit(_:), which receives the commit's record")
    func substance(_ substance: any AnySubstance, didCommit changes: SubstanceChanges, lock: FluxLock?)
    /// Whether mix reports count the observer as a reactor; others are counted apart (false by
    /// default; reactors say true).
    var countsAsReactor: Bool { get }
}

extension SubstanceObserver {
    /// False: an observer is a tool unless it says it is a reactor.
    public var countsAsReactor: Bool { false }

    /// Calls the older spelling, for an observer written with it.
    @available(*, deprecated, message: "implement didCommit(_:), which receives the commit's record")
    public func didCommit(_ commit: Commit) {
        substance(commit.substance, didCommit: commit.changes, lock: commit.lock)
    }

    /// Nothing: an observer implements ``didCommit(_:)``.
    @available(*, deprecated, message: "implement didCommit(_:), which receives the commit's record")
    public func substance(_ substance: any AnySubstance, didCommit changes: SubstanceChanges, lock: FluxLock?) {}
}

extension AnySubstance {
    /// The name as reports write it: cut after 80 characters, with the full length said, so that a
    /// very long name does not fill the diagnostics.
    package var nameInReports: String { ArchiveProblem.shortened(name()) }
}

/// A substance whose keys resolve to entries of its state's reduction plan, for reactions
/// declared once (see `Reactor.on(_:_:)`), and whose observers can be bound under an identity of
/// their binder's choosing (a reactor binds its routes under its own): every `Substance`.
package protocol KeyedSubstance: AnySubstance {
    /// The substance's one weak reference to itself, which whatever refers to it without keeping
    /// it alive shares.
    var reference: SubstanceReference { get }
    /// See `Substance.bindOnBus(_:as:keys:)`.
    func bindOnBus(_ observer: any SubstanceObserver, as id: ObjectIdentifier, keys: [String]?)
    /// See `Substance.unbind(id:)`.
    func unbind(id: ObjectIdentifier)

    /// The plan entry of `key` and the plan's identity (to hand back to
    /// `SubstanceChanges.lookUp(entry:of:)`), when `key` is an entry of the state's plan. Plans live
    /// as long as the process (one per state type), so the identity is never reused.
    func planEntry(of key: String) -> (entry: Int32, plan: ObjectIdentifier)?
}

extension Substance: KeyedSubstance {
    package func planEntry(of key: String) -> (entry: Int32, plan: ObjectIdentifier)? {
        plan.keyIndex[key].map { (Int32($0), ObjectIdentifier(plan)) }
    }
}

/// A substance whose committed state can be waited for on disk (see `Substance.stored()`): every
/// `Substance`.
package protocol StoredSubstance: AnySubstance {
    /// See `Substance.stored()`.
    func stored() async throws(ArchiveProblem)
}

extension Substance: StoredSubstance {}
