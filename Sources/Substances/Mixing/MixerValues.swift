/// Whether a mixer is an enumeration case with associated values (`case login(user: String)`),
/// which dispatches of other values never reach.
enum MixerValues {
    static func has<M: SubstanceMixer>(_ mixer: M) -> Bool {
        // An enumeration without associated values takes at most a byte; only bigger mixers need
        // a look.
        guard MemoryLayout<M>.size > 1 else { return false }
        let mirror = Mirror(reflecting: mixer)
        return mirror.displayStyle == .enum && !mirror.children.isEmpty
    }

    /// The name of `mixer`: its description, or for a case with associated values, the case's own
    /// name followed by its values in parentheses, `login(password: "…")`, whatever the type's
    /// description says. Reports cut a name at its first `(` (see `FluxMixerName.description`), so
    /// they show the case and never the values, even where a custom description would have put
    /// them first.
    static func name<M: SubstanceMixer>(of mixer: M) -> String {
        guard MemoryLayout<M>.size > 1 else { return String(describing: mixer) }
        let mirror = Mirror(reflecting: mixer)
        guard mirror.displayStyle == .enum else {
            // A structure (or class) with stored values: its type, then its description.
            return "\(M.self)(\(String(describing: mixer)))"
        }
        guard let child = mirror.children.first, let label = child.label else { return String(describing: mixer) }
        let values = String(describing: child.value)
        return values.hasPrefix("(") ? label + values : "\(label)(\(values))"
    }
}
