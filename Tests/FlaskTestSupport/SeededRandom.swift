import Foundation

/// A random number generator seeded by the test (SplitMix64), so that a failing random case can
/// be replayed from the seed the test prints.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Whether the tests run in a debug build, where the library's debug checks (confinement to the
/// bus, transaction calls off the bus) trap; a release build compiles them out.
public let isDebugBuild: Bool = {
    #if DEBUG
        true
    #else
        false
    #endif
}()

/// Whether the tests run under the thread sanitizer (its runtime is loaded): what its instrumentation
/// changes (memory, time) is not the library's.
public let isThreadSanitized: Bool = {
    #if canImport(Darwin)
        dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil  // RTLD_DEFAULT
    #elseif canImport(Glibc)
        dlsym(nil, "__tsan_init") != nil  // RTLD_DEFAULT
    #else
        false
    #endif
}()
