import FlaskLocking
import Substances

/// A reactor's handler in a box, so the bus can call it without retaining it.
final class ReactorHandlerBox<Owner: AnyObject>: Sendable {
    let call: Reactor<Owner>.Handler

    init(_ call: @escaping Reactor<Owner>.Handler) {
        self.call = call
    }
}

/// The reactions declared on a reactor with `Reactor.on(_:_:)`, as the bus runs them. Not generic
/// over the owner: generic storage would have its metadata looked up at run time on every commit.
final class DeclaredReactions: Sendable {
    /// In the order they were declared.
    let reactions: [DeclaredReaction]
    /// Each reaction's plan entry, and the reaction unretained (``reactions`` keeps it): plain
    /// words, read without retaining the reaction or its body (scenario S3d).
    private let entries: [Entry]
    /// When the reactor also declares ``Reactor/keys``, the keys that limit its handlers: the
    /// substance then delivers the commits of the declared reactions' keys too, and the handlers
    /// must skip those that touch none of their own. Nil otherwise (the substance's filter is exact).
    let handlerKeys: [String]?

    private struct Entry: Sendable {
        let key: ResolvedKey
        let reaction: Unretained<DeclaredReaction>
    }

    init(_ reactions: [DeclaredReaction], handlerKeys: [String]?) {
        self.reactions = reactions
        self.entries = reactions.map { Entry(key: $0.resolved, reaction: Unretained($0)) }
        self.handlerKeys = handlerKeys
    }

    /// Whether the reactor's handlers want `changes` (always, unless ``handlerKeys`` says otherwise).
    func handlerWants(_ changes: SubstanceChanges) -> Bool {
        guard let handlerKeys else { return true }
        return changes.touchesAny(of: handlerKeys)
    }

    /// ``run(_:_:)`` with an owner the caller holds (off the bus, where no holds keep it).
    func run(retained owner: AnyObject, _ changes: SubstanceChanges) {
        // `owner` is retained by the caller for the whole call: lending it unretained is safe.
        run(Unretained(owner), changes)
    }

    /// Runs the reactions whose key changed in `changes`, with `owner` (borrowed): each looked up
    /// by its entry when `changes` come from the plan it was resolved in, by its name otherwise;
    /// exact either way.
    @inline(__always)
    func run(_ owner: Unretained<AnyObject>, _ changes: SubstanceChanges) {
        // By index: an iterator would retain the array.
        for index in entries.indices {
            let entry = entries[index]
            switch changes.lookUp(entry: entry.key.entry, of: entry.key.plan) {
            case .changed(let slot):
                owner.withObject { owner in
                    entry.reaction.withObject { $0.body(owner, SubstanceChange(changes: changes, slot: slot)) }
                }
            case .unchanged: continue
            case .notAnEntry:
                owner.withObject { owner in entry.reaction.withObject { $0.runIfChanged(owner, changes) } }
            }
        }
    }
}

/// A declared reaction's key as an entry of the plan of the reactor's first substance, resolved
/// when it was declared; entry -1 when it is not one there (a key below a dictionary or an
/// optional, another state's key), with a plan identity no plan has.
struct ResolvedKey: Sendable {
    let entry: Int32
    let plan: ObjectIdentifier
}

/// A reaction declared once on a reactor (`reactor.on(key) { owner, change in }`): its key, known
/// to the library, and its body.
final class DeclaredReaction: Sendable {
    let key: String
    /// The body, taking the owner as `AnyObject` (the reactor's `Owner`, cast back inside).
    let body: @Sendable (AnyObject, SubstanceChange) -> Void
    let resolved: ResolvedKey

    init(key: String, body: @escaping @Sendable (AnyObject, SubstanceChange) -> Void, substance: (any AnySubstance)?) {
        self.key = key
        self.body = body
        let entry = (substance as? any KeyedSubstance)?.planEntry(of: key)
        self.resolved = ResolvedKey(
            entry: entry?.entry ?? -1, plan: entry?.plan ?? ObjectIdentifier(DeclaredReaction.self))
    }

    /// Calls the body if `key` changed in `changes`, looked up by its name.
    func runIfChanged(_ owner: AnyObject, _ changes: SubstanceChanges) {
        if let change = changes.change(key) { body(owner, change) }
    }
}
