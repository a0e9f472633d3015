import Substances

/// What a reactor runs on the bus for a commit: its handler and its declared reactions, in a box
/// so that the bus calls them without retaining them. Made anew whenever one of them changes.
final class ReactorHandlerBox<Owner: AnyObject>: Sendable {
    /// The handler, if any.
    let call: Reactor<Owner>.Handler?
    /// The reactions declared with `Reactor.on(_:_:)`, in the order they were declared.
    let declared: [DeclaredReaction<Owner>]
    /// When both keys and declared reactions are set, the keys that limit the handler: the
    /// substance then delivers the commits of the declared reactions' keys too, and the handler
    /// must skip those that touch none of its own. Nil otherwise (the substance's filter is exact).
    let handlerKeys: [String]?

    init(_ call: Reactor<Owner>.Handler?, declared: [DeclaredReaction<Owner>] = [], handlerKeys: [String]? = nil) {
        self.call = call
        self.declared = declared
        self.handlerKeys = declared.isEmpty ? nil : handlerKeys
    }

    /// Whether the handler wants `changes` (always, unless ``handlerKeys`` says otherwise).
    @inline(__always)
    func handlerWants(_ changes: SubstanceChanges) -> Bool {
        guard let handlerKeys else { return true }
        return changes.touchesAny(of: handlerKeys)
    }

    /// Runs the declared reactions whose key changed in `changes`, with `owner`.
    @inline(__always)
    func runDeclared(_ owner: Owner, _ changes: SubstanceChanges) {
        for reaction in declared { reaction.react(owner, changes) }
    }
}

/// A reaction declared once on a reactor (`reactor.on(key) { owner, change in }`): its key, known
/// to the library, and its body.
struct DeclaredReaction<Owner: AnyObject>: Sendable {
    let key: String
    let body: @Sendable (Owner, SubstanceChange) -> Void
    /// The key's entry in the plan of the reactor's first substance, resolved when it was declared
    /// (nil when it is not an entry there: a key below a dictionary or an optional, another state's).
    let resolved: (entry: Int32, plan: any AnyObject & Sendable)?

    // The plan is immutable and lives as long as the process (one per state type).
    init(key: String, body: @escaping @Sendable (Owner, SubstanceChange) -> Void, substance: (any AnySubstance)?) {
        self.key = key
        self.body = body
        self.resolved = (substance as? any KeyedSubstance)?.planEntry(of: key)
    }

    /// Calls the body if `key` changed in `changes`: looked up by its entry when `changes` come
    /// from the plan it was resolved in, by its name otherwise; exact either way.
    @inline(__always)
    func react(_ owner: Owner, _ changes: SubstanceChanges) {
        let found = resolved.map { changes.lookUp(entry: $0.entry, of: $0.plan) } ?? .notAnEntry
        switch found {
        case .changed(let slot): body(owner, SubstanceChange(changes: changes, slot: slot))
        case .unchanged: return
        case .notAnEntry: if let change = changes.change(key) { body(owner, change) }
        }
    }
}
