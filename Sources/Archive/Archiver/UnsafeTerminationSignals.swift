import FlaskLocking
import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// The signal handling behind `Archiver.flushOnTermination(signals:)`, in one place: a signal
// handler is a C function that can capture nothing and may call only async-signal-safe functions,
// so it reads a global, and the handlers already installed are told apart by their addresses.
//
// The invariants:
// - The handler only writes the signal's number to a pipe (`write` is async-signal-safe) and
//   restores `errno`; it reads the pipe's write end from an atomic, set before any handler is
//   installed and never changed afterwards (checked in debug builds).
// - `SIG_IGN` and `SIG_DFL` are compared by the address a `sigaction` holds: the handler field is
//   a C function pointer, read as the word it is (`unsafeBitCast` checks, in every build, that the
//   two types have one size).

#if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    /// The write end of the pipe the signal handler writes to, -1 until the pipe is made: set once,
    /// before any handler is installed, and only read afterwards (from the handler, where nothing
    /// else may be touched; an atomic load is async-signal-safe).
    private let terminationPipeWriteEnd = Atomic<Int32>(-1)

    /// The signal handler: async-signal-safe, it only writes the signal's number to the pipe.
    private func terminationSignalHandler(_ signal: Int32) {
        let savedErrno = errno
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(terminationPipeWriteEnd.load(ordering: .acquiring), &byte, 1)
        errno = savedErrno
    }

    /// Installs the handlers and the thread that flushes.
    enum TerminationFlush {
        /// The disposition each handled signal had before, restored before it is re-raised.
        private struct Installed {
            var previous: [Int32: sigaction] = [:]
            var readEnd: Int32 = -1
        }

        private static let installed = LockedValue(Installed())

        static func install(_ signals: [Int32]) {
            installed.withLock { installed in
                if installed.readEnd < 0 {
                    var ends: [Int32] = [-1, -1]
                    guard pipe(&ends) == 0 else { return }
                    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                    installed.readEnd = ends[0]
                    assert(terminationPipeWriteEnd.load(ordering: .relaxed) < 0, "the termination pipe made twice")
                    terminationPipeWriteEnd.store(ends[1], ordering: .releasing)
                    startReader(ends[0])
                }
                assert(terminationPipeWriteEnd.load(ordering: .relaxed) >= 0, "a handler installed before its pipe")
                for signal in signals where installed.previous[signal] == nil {
                    var current = sigaction()
                    guard sigaction(signal, nil, &current) == 0, !isIgnored(current) else { continue }
                    var action = sigaction()
                    setHandler(of: &action, to: terminationSignalHandler)
                    action.sa_flags = SA_RESTART
                    sigemptyset(&action.sa_mask)
                    var previous = sigaction()
                    guard sigaction(signal, &action, &previous) == 0 else { continue }
                    installed.previous[signal] = previous
                }
            }
        }

        private static func isIgnored(_ action: sigaction) -> Bool {
            handler(of: action) == unsafeBitCast(SIG_IGN, to: Int.self)
        }

        /// The address of the action's handler (`SIG_DFL` and `SIG_IGN` are small numbers).
        private static func handler(of action: sigaction) -> Int {
            #if canImport(Darwin)
                unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
            #elseif canImport(Glibc)
                unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
            #else
                unsafeBitCast(action.__sa_handler.sa_handler, to: Int.self)
            #endif
        }

        private static func setHandler(of action: inout sigaction, to handler: @escaping @convention(c) (Int32) -> Void)
        {
            #if canImport(Darwin)
                action.__sigaction_u.__sa_handler = handler
            #elseif canImport(Glibc)
                action.__sigaction_handler.sa_handler = handler
            #else
                action.__sa_handler.sa_handler = handler
            #endif
        }

        private static func startReader(_ readEnd: Int32) {
            let thread = Thread {
                while true {
                    var byte: UInt8 = 0
                    let count = read(readEnd, &byte, 1)
                    if count < 0 && errno == EINTR { continue }
                    guard count == 1 else { return }
                    terminate(by: Int32(byte))
                }
            }
            thread.name = "flask.archive.termination"
            thread.start()
        }

        /// Restores the signal's previous disposition, flushes, and raises it again.
        private static func terminate(by signal: Int32) {
            let previous = installed.withLock { $0.previous.removeValue(forKey: signal) }
            guard var previous else { return }
            sigaction(signal, &previous, nil)
            ArchiverRegistry.flushAll()
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, signal)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            raise(signal)
            // Still here: the previous handler returned (the app goes on), or the signal was not
            // delivered. Either way the writes are flushed; a default disposition must still end us.
            if handler(of: previous) == unsafeBitCast(SIG_DFL, to: Int.self) { _exit(128 + signal) }
        }
    }
#endif
