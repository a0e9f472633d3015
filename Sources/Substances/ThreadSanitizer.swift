#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether this process runs under the thread sanitizer.
///
/// A delivered commit's changes object is refilled when its reference count says nobody else holds
/// it (see `Substance.recycle`). That is ordered by the reference count itself: a thread that drops
/// its reference does so with a release, and the check that sees the count at one is an acquire.
/// The sanitizer cannot see those operations (they happen in the uninstrumented Swift runtime),
/// so it would report the refill as racing with the other thread's earlier reads: a false report,
/// in the user's sanitizer runs as in ours. Under the sanitizer, substances therefore allocate a new
/// changes object per commit, as they did before recycling existed.
enum ThreadSanitizer {
    static let isActive: Bool = {
        #if canImport(Darwin)
            let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(everywhere, "__tsan_init") != nil
    }()
}
