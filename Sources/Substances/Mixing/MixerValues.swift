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
}
