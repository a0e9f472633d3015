import FlaskLocking

/// An archiver's ``Archiver/minimumPatchingBytes``: the least size of a value's JSON for its writes
/// to be patches.
package final class ArchivePatchingThreshold: Sendable {
    private let value = LockedValue(Archiver.defaultMinimumPatchingBytes)

    package init() {}

    /// The threshold, in bytes (never negative).
    package var bytes: Int {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = max(0, newValue) } }
    }
}
