import Archive

/// Where and when a substance archives its state, given at creation instead of overriding the
/// archive hooks in a subclass.
///
/// ```swift
/// let drafts = Substance<AppState>(
///     name: "drafts", archive: true,
///     archiveSettings: ArchiveSettings(delay: 1, maxDelay: 3))
/// ```
///
/// The settings apply whenever the substance archives: from creation with `archive: true`, or
/// once ``Substance/shouldArchive`` is set. A subclass that overrides a hook (``Substance/archiveKey()``,
/// ``Substance/archiveDelay()``, ...) decides for that hook; the hooks' default implementations
/// return these settings.
public struct ArchiveSettings: Sendable {
    /// The key space of the default key, `Fx.<keySpace>.<name>` (`"1"` by default): change it to
    /// start afresh when the state's shape changes beyond what restoring can carry over.
    public var keySpace: String
    /// The archive key, replacing `Fx.<keySpace>.<name>` (nil by default: that key).
    public var key: String?
    /// Seconds of quiet after the last change before the state is written (2 by default).
    public var delay: Double
    /// The most seconds a change waits to be written while changes keep coming
    /// (`Archiver.defaultMaxDelay`, 5, by default): the bound on what a crash or a kill can lose.
    /// A ``delay`` longer than this is cut to it.
    public var maxDelay: Double
    /// The archiver to write with (nil by default: `Archiver.shared`, the app's default store).
    public var archiver: Archiver?

    /// Creates archive settings; every argument left out keeps its default.
    public init(
        keySpace: String = "1", key: String? = nil, delay: Double = 2.0,
        maxDelay: Double = Archiver.defaultMaxDelay, archiver: Archiver? = nil
    ) {
        self.keySpace = keySpace
        self.key = key
        self.delay = delay
        self.maxDelay = maxDelay
        self.archiver = archiver
    }
}
