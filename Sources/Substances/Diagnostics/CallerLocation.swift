import FlaskLocking

#if DEBUG && canImport(Runtime)
    import Runtime
#endif

/// Where the user's code called the library, for a diagnostic reported from a property (`prop`,
/// `reactor.keys`), which, unlike a function, cannot take the caller's `#fileID` and `#line`.
///
/// In debug builds where the Swift runtime's backtracing module is available (Linux), the first
/// frame of the stack outside this package's sources, symbolicated once per return address: the
/// report then reads `… at Feature.swift:42`. Elsewhere, and in release builds, nil: the report
/// names the substance and what was misused, not the place.
package enum CallerLocation {
    #if DEBUG && canImport(Runtime)
        /// This package's `Sources` folder: frames in it are the library's own.
        private static let libraryRoot: String = {
            var path = Substring(#filePath)
            for _ in 0..<3 { path = path[..<(path.lastIndex(of: "/") ?? path.startIndex)] }
            return String(path) + "/"
        }()

        /// Places already found, by the return address of the frame asked about.
        private static let found = LockedValue<[UInt: String]>([:])
    #endif

    /// `file:line` of the innermost caller outside the library, or nil.
    package static func current() -> String? {
        #if DEBUG && canImport(Runtime)
            guard let backtrace = try? Backtrace.capture(limit: 24) else { return nil }
            let key = backtrace.frames.reduce(into: UInt(0)) { key, frame in
                key = key &* 31 &+ UInt(truncatingIfNeeded: frame.adjustedProgramCounter.hashValue)
            }
            if let place = found.withLock({ $0[key] }) { return place }
            guard let symbolicated = backtrace.symbolicated() else { return nil }
            for frame in symbolicated.frames {
                guard let location = frame.symbol?.sourceLocation, !location.path.hasPrefix(libraryRoot),
                    !location.path.isEmpty, location.line > 0
                else { continue }
                let file = location.path.split(separator: "/").last.map(String.init) ?? location.path
                let place = "\(file):\(location.line)"
                found.withLock { $0[key] = place }
                return place
            }
            return nil
        #else
            return nil
        #endif
    }
}
