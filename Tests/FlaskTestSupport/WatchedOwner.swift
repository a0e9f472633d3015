/// An owner that tells when it is freed: to see when the last reference to it went.
public final class WatchedOwner: Sendable {
    private let onDeinit: @Sendable () -> Void

    public init(onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}
