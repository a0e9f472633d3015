extension Reactor {
    /// Removed: a reactor no longer learns which keys its handler asks for. Learning could not see
    /// a handler whose keys depend on anything but the commit, and skipped it in silence; a
    /// handler now runs for every commit, as the seed says. To be called only for some keys,
    /// declare them: ``keys``, or reactions declared with `on(_:fileID:line:_:)` with a string key.
    /// Reads false; setting it does nothing.
    @available(*, deprecated, message: "handlers run for every commit; declare keys with `keys` or `on(_:_:)`")
    public var learnsKeys: Bool {
        get { false }
        // swift-format-ignore
        set {}
    }
}
