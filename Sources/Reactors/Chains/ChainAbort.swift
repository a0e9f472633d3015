/// What a chain step calls to abort its chain: `abort()`. It lives for the step's call only (it
/// cannot be copied or kept), so it is always called while the chain runs.
public struct ChainAbort: ~Copyable {
    private let flag: UnsafeMutablePointer<Bool>

    init(flag: UnsafeMutablePointer<Bool>) {
        self.flag = flag
    }

    /// Aborts the chain: no substance of it changes, and its later steps do not run.
    public borrowing func callAsFunction() {
        flag.pointee = true
    }
}
