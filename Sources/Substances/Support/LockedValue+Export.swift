/// `LockedValue`, the package's lock around a value, is public API of `Substances`: a lock the
/// thread sanitizer understands on every platform (`Synchronization.Mutex` waits on a futex on
/// Linux, which the sanitizer does not see, so that it reports races between correctly locked
/// accesses), for the state of an observer, a middleware or a tool of your own. The tools
/// (`FlaskTools`, `FlaskTesting`) use it through this export, as you would.
@_exported import struct FlaskLocking.LockedValue
