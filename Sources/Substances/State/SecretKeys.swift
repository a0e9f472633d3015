import FlaskLocking
import FluxBus

/// A state's secret keys (``State/secretKeys``) as the tools that write values out apply them: a
/// secret key names a field wherever it lies below its first component, through optionals, array
/// elements and dictionary values (`history.password` covers every element's `password`,
/// `accounts.password` every account's in a dictionary of them).
///
/// Matching: a path of property names (dictionary keys and array positions between them) is secret
/// when it starts with the secret key's first component and holds the others in order; what lies
/// below a secret path is secret too. So `password` names the state's own `password` only, and
/// `account.password` the `password` of `account` and of anything inside it.
package struct SecretKeys: Sendable {
    /// Each secret key's components.
    let keys: [[String]]

    init(_ keys: Set<String>) {
        self.keys = keys.sorted().map { DottedKey.components(of: $0) }.filter { !$0.isEmpty }
    }

    package static let none = SecretKeys([])

    package var isEmpty: Bool { keys.isEmpty }

    /// How far each secret key is matched at some place in a value: nil for a key that can no
    /// longer match there, its count once matched whole (the place is secret).
    package struct Progress: Sendable {
        var matched: [Int?]

        /// Whether the place is secret.
        package func isSecret(in secrets: SecretKeys) -> Bool {
            zip(matched, secrets.keys).contains { $0 == $1.count }
        }

        /// Whether nothing below the place can be secret.
        package var isDead: Bool { matched.allSatisfy { $0 == nil } }
    }

    /// The progress at the root of a state.
    package var root: Progress { Progress(matched: keys.map { _ in 0 }) }

    /// The progress one level below a place with `progress`, through the object key `component`.
    package func step(_ progress: Progress, _ component: String) -> Progress {
        var next = progress.matched
        for index in keys.indices {
            guard let matched = progress.matched[index] else { continue }
            let key = keys[index]
            if matched == key.count { continue }  // secret already: stays so
            if key[matched] == component {
                next[index] = matched + 1
            } else if matched == 0 {
                next[index] = nil  // anchored: the first component is the state's own property
            }
            // Otherwise a dictionary key (or a property between): crossed.
        }
        return Progress(matched: next)
    }

    /// The progress at the place of the dotted `key` of a state.
    package func progress(at key: String) -> Progress {
        DottedKey.components(of: key).reduce(root) { step($0, $1) }
    }

    /// Whether the dotted `key` is secret: one of the keys, or below one.
    package func isSecret(_ key: String) -> Bool {
        !isEmpty && progress(at: key).isSecret(in: self)
    }
}

/// The ``SecretKeys`` of actions and mixer enumerations, made once per type: a journal asks for
/// them at every recorded mix. (A state's are kept by its reduction plan.)
package enum SecretKeysCache {
    private static let cache = LockedValue([ObjectIdentifier: SecretKeys]())

    /// The secret keys of `type` (an action, a mixer enumeration), given by `keys`.
    package static func secrets(of type: any Any.Type, _ keys: @autoclosure () -> Set<String>) -> SecretKeys {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let made = SecretKeys(keys())
        cache.withLock { $0[id] = made }
        return made
    }
}

extension SecretKeys {
    /// The state types whose secret keys were checked (see ``check(_:on:)``).
    private static let checked = LockedValue(Set<ObjectIdentifier>())

    /// Reports, once per state type, each secret key of `S` that names no key the type can have.
    static func check<S: State>(_ type: S.Type, on bus: Flux) {
        guard !S.secretKeys.isEmpty, checked.withLock({ $0.insert(ObjectIdentifier(type)).inserted }) else { return }
        for key in S.secretKeys.sorted()
        where !canHave(S.self, DottedKey.components(of: key)[...], anchored: true, depth: 0) {
            bus.report(
                .unknownSecretKey,
                "\(S.self).secretKeys: \"\(key)\" names no key \(S.self) can have; nothing is redacted for it")
        }
    }

    /// Whether a value of `type` can hold the path `components` (see the matching rules above):
    /// through optionals, array elements and dictionary values; the first component anchored.
    private static func canHave(_ type: any Any.Type, _ components: ArraySlice<String>, anchored: Bool, depth: Int)
        -> Bool
    {
        guard let first = components.first else { return true }
        guard depth < 12 else { return true }  // a recursive type: give it the benefit of the doubt
        let type = unwrappingOptionals(type)
        if type is any KeyedByContent.Type { return true }  // a dictionary: its keys are data
        if let array = type as? any ElementTyped.Type {
            return canHave(array.elementType, components, anchored: anchored, depth: depth + 1)
        }
        guard let fields = FieldLayout.storedFields(of: type) else { return true }  // cannot tell
        let named = fields.filter(\.isProperty)
        if let field = named.first(where: { $0.name == first }),
            canHave(field.type, components.dropFirst(), anchored: false, depth: depth + 1)
        {
            return true
        }
        // Below the first component, a field may be crossed on the way.
        return !anchored && named.contains { canHave($0.type, components, anchored: false, depth: depth + 1) }
    }
}

/// An array, seen through its type: what lets a secret key cross its elements.
protocol ElementTyped {
    static var elementType: any Any.Type { get }
}

extension Array: ElementTyped {
    static var elementType: any Any.Type { Element.self }
}
