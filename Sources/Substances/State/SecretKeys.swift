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
public struct SecretKeys: Sendable {
    /// Each secret key's components.
    let keys: [[String]]
    /// The other spelling of a name, in the types the keys apply to: a property's coding key, a
    /// coding key's property (`password` and `pw` for `case password = "pw"`). A secret key's
    /// component matches a place's under either (see ``CodingKeyAliases``).
    let aliases: [String: Set<String>]

    init(_ keys: Set<String>, aliases: Set<CodingKeyAliases.Alias> = []) {
        self.keys = keys.sorted().map { DottedKey.components(of: $0) }.filter { !$0.isEmpty }
        var spellings: [String: Set<String>] = [:]
        for alias in aliases {
            spellings[alias.property, default: []].insert(alias.key)
            spellings[alias.key, default: []].insert(alias.property)
        }
        self.aliases = spellings
    }

    /// The secret keys of `type` (a state, an action), matched under property names and coding keys.
    init(_ keys: Set<String>, of type: any Any.Type) {
        self.init(keys, aliases: keys.isEmpty ? [] : CodingKeyAliases.of(type).aliases)
    }

    /// Whether a secret key's component `secret` names the place component `component`.
    func names(_ component: String, by secret: String) -> Bool {
        secret == component || aliases[secret]?.contains(component) == true
    }

    /// No secret keys.
    public static let none = SecretKeys([])

    /// Whether there are no secret keys.
    public var isEmpty: Bool { keys.isEmpty }

    /// How far each secret key is matched at some place in a value: nil for a key that can no
    /// longer match there, its count once matched whole (the place is secret).
    public struct Progress: Sendable {
        var matched: [Int?]

        /// Whether the place is secret.
        public func isSecret(in secrets: SecretKeys) -> Bool {
            zip(matched, secrets.keys).contains { $0 == $1.count }
        }

        /// Whether nothing below the place can be secret.
        public var isDead: Bool { matched.allSatisfy { $0 == nil } }
    }

    /// The progress at the root of a state.
    public var root: Progress { Progress(matched: keys.map { _ in 0 }) }

    /// The progress one level below a place with `progress`, through the object key `component`.
    public func step(_ progress: Progress, _ component: String) -> Progress {
        var next = progress.matched
        for index in keys.indices {
            guard let matched = progress.matched[index] else { continue }
            let key = keys[index]
            if matched == key.count { continue }  // secret already: stays so
            if names(component, by: key[matched]) {
                next[index] = matched + 1
            } else if matched == 0 {
                next[index] = nil  // anchored: the first component is the state's own property
            }
            // Otherwise a dictionary key (or a property between): crossed.
        }
        return Progress(matched: next)
    }

    /// The progress at the place of the dotted `key` of a state.
    public func progress(at key: String) -> Progress {
        DottedKey.components(of: key).reduce(root) { step($0, $1) }
    }

    /// Whether the dotted `key` is secret: one of the keys, or below one.
    public func isSecret(_ key: String) -> Bool {
        !isEmpty && progress(at: key).isSecret(in: self)
    }
}

extension SecretKeys {
    /// The secret keys of a state type, as the tools redact them (``State/secretKeys``, matched
    /// under property names and coding keys), made once per type.
    public static func of<S: State>(_ type: S.Type) -> SecretKeys { S.secrets }

    /// The secret keys `keys` of `type` (an action type and its `FlaskAction/secretKeys`, a mixer
    /// enumeration and its `SubstanceMixer/secretPayloadKeys`), matched under property names and
    /// coding keys, made once per type: a journal asks at every mix it records.
    public static func of(_ type: any Any.Type, keys: @autoclosure () -> Set<String>) -> SecretKeys {
        SecretKeysCache.secrets(of: type, keys())
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
        let made = SecretKeys(keys(), of: type)
        cache.withLock { $0[id] = made }
        return made
    }
}

/// The state types whose secret keys a bus has checked (see `SecretKeys.check(_:on:)`): one per
/// bus, so that each bus (each test's, with `.ownBus`) is told.
final class SecretKeyChecks: Sendable {
    let checked = LockedValue(Set<ObjectIdentifier>())
}

extension SecretKeys {
    /// Reports, once per state type and bus, each secret key of `S` that names no key the type can
    /// have.
    static func check<S: State>(_ type: S.Type, on bus: Flux) {
        guard !S.secretKeys.isEmpty else { return }
        let checks = bus.clientObject(SecretKeyChecks.self) { SecretKeyChecks() }
        guard checks.checked.withLock({ $0.insert(ObjectIdentifier(type)).inserted }) else { return }
        // The same secrets the tools redact with: the check agrees with them, spelling for spelling.
        let secrets = ReductionPlan.cached(for: S.self).secrets
        for key in S.secretKeys.sorted()
        where !secrets.canHave(S.self, DottedKey.components(of: key)[...], anchored: true, depth: 0) {
            bus.report(
                .unknownSecretKey,
                "\(S.self).secretKeys: \"\(key)\" names no key \(S.self) can have; nothing is redacted for it")
        }
    }

    /// Whether a value of `type` can hold the path `components` (see the matching rules above):
    /// through optionals, array elements and dictionary values; the first component anchored.
    private func canHave(_ type: any Any.Type, _ components: ArraySlice<String>, anchored: Bool, depth: Int)
        -> Bool
    {
        guard let first = components.first else { return true }
        guard depth < 12 else { return true }  // a recursive type: give it the benefit of the doubt
        let type = unwrappingOptionalType(type)
        if type is any KeyedByContent.Type { return true }  // a dictionary: its keys are data
        if let array = type as? any ElementTyped.Type {
            return canHave(array.elementType, components, anchored: anchored, depth: depth + 1)
        }
        guard let fields = FieldLayout.storedFields(of: type) else { return true }  // cannot tell
        // A type whose coding keys could not all be learned: a name may be one of its keys
        // without being one of its properties.
        if CodingKeyAliases.of(type).incomplete { return true }
        let named = fields.filter(\.isProperty)
        if let field = named.first(where: { names($0.name, by: first) }),
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
