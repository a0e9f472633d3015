#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    extension Archiver {
        /// Flushes every archiver's pending writes when the process is asked to stop by one of
        /// `signals`, then lets the signal take its course: the handler that was there before runs, or,
        /// by default, the process ends by the signal, with the exit status a shell shows as 128 + the
        /// signal's number.
        ///
        /// For command-line tools and services, which `kill`, a container runtime or Ctrl-C stop with
        /// SIGTERM or SIGINT: by default those end the process at once and pending writes are lost
        /// (`atexit` handlers do not run). Never installed unless called. Call it once, early;
        /// calling it again does nothing for a signal already handled. A signal the process ignores
        /// when this is called (`nohup`, a background job's SIGINT) is left ignored.
        ///
        /// The signal handler only writes a byte to a pipe (it is async-signal-safe); a thread of the
        /// archive reads it, flushes, and re-raises the signal. A second signal during the flush
        /// meets the previous handler, so a second Ctrl-C still stops a tool at once. The archive's
        /// file writes are atomic, so a flush cut short leaves each archive whole.
        ///
        /// - Parameter signals: SIGTERM and SIGINT by default.
        public static func flushOnTermination(signals: [Int32] = [SIGTERM, SIGINT]) {
            TerminationFlush.install(signals)
        }
    }
#endif
