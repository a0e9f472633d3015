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
    /// When the reactor also declares ``Reactor/keys``, the keys that limit its handlers: the
    /// substance then delivers the commits of the declared reactions' keys too, and the handlers
    /// must skip those that touch none of their own. Nil otherwise (the substance's filter is exact).
    let handlerKeys: [String]?

    init(_ reactions: [DeclaredReaction], handlerKeys: [String]?) {
        self.reactions = reactions
        self.handlerKeys = handlerKeys
    }

    /// Whether the reactor's handlers want `changes` (always, unless ``handlerKeys`` says otherwise).
    func handlerWants(_ changes: SubstanceChanges) -> Bool {
        guard let handlerKeys else { return true }
        return changes.touchesAny(of: handlerKeys)
    }

    /// Runs the reactions whose key changed in `changes`, with `owner`. (Through the buffer: a
    /// loop over the array retained it and each element.)
    func run(_ owner: AnyObject, _ changes: SubstanceChanges) {
        reactions.withUnsafeBufferPointer { reactions in
            for index in reactions.indices { reactions[index].react(owner, changes) }
        }
    }
}

/// A reaction declared once on a reactor (`reactor.on(key) { owner, change in }`): its key, known
/// to the library, and its body.
struct DeclaredReaction: Sendable {
    let key: String
    /// The body, taking the owner as `AnyObject` (the reactor's `Owner`, cast back inside).
    let body: @Sendable (AnyObject, SubstanceChange) -> Void
    /// The key's entry in the plan of the reactor's first substance, resolved when it was declared
    /// (nil when it is not an entry there: a key below a dictionary or an optional, another state's).
    let resolved: (entry: Int32, plan: ObjectIdentifier)?

    init(key: String, body: @escaping @Sendable (AnyObject, SubstanceChange) -> Void, substance: (any AnySubstance)?) {
        self.key = key
        self.body = body
        self.resolved = (substance as? any KeyedSubstance)?.planEntry(of: key)
    }

    /// Calls the body if `key` changed in `changes`: looked up by its entry when `changes` come
    /// from the plan it was resolved in, by its name otherwise; exact either way.
    @inline(__always)
    func react(_ owner: AnyObject, _ changes: SubstanceChanges) {
        var found = SubstanceChanges.EntryLookup.notAnEntry
        if let resolved { found = changes.lookUp(entry: resolved.entry, of: resolved.plan) }
        switch found {
        case .changed(let slot): body(owner, SubstanceChange(changes: changes, slot: slot))
        case .unchanged: return
        case .notAnEntry: if let change = changes.change(key) { body(owner, change) }
        }
    }
}
