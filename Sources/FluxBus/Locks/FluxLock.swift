import FlaskLocking
import Synchronization

/// A pause of a ``Flux`` bus's main lane.
///
/// While any lock is held, no item of the main lane starts; the exclusive lane still runs. Locks
/// stack: the main lane resumes only when every lock is released.
///
/// ```swift
/// let lock = bus.lock()
/// // ... the main lane is paused ...
/// lock.release()
/// ```
///
/// `release()` is idempotent. ``onRelease`` is called exactly once, with the reason of the release.
///
/// `@unchecked Sendable`: its one mutable property, `state`, is touched only inside
/// `stateLock.withLock`.
public final class FluxLock: @unchecked Sendable, CustomStringConvertible {
    /// Why a lock was released.
    public enum Release: Sendable, Equatable {
        /// ``release()`` was called.
        case explicit
        /// An exclusive mix produced nothing for anyone to release (see `autorelease`).
        case autorelease
        /// ``Flux/removeLocks()`` released every lock.
        case removeAll
        /// ``Flux/purge()`` dropped the exclusive mix this lock came with.
        case purged
    }

    /// The mixer dispatched together with this lock, for an exclusive mix.
    public let mixer: FluxMixerName?
    /// Whether an exclusive mix that produced no reaction releases this lock by itself.
    public let autorelease: Bool
    /// A number unique to this lock within its bus, in creation order.
    public let serial: UInt64
    /// When the lock was taken (`ContinuousClock`).
    public let takenAt: ContinuousClock.Instant
    /// Where the lock was taken.
    public let origin: Origin

    /// The source location that took a lock.
    public struct Origin: Sendable, Equatable, CustomStringConvertible {
        // Kept as the static string the compiler made: taking a lock allocates nothing for it.
        private let file: StaticString
        /// The line of the call that took the lock.
        public let line: UInt

        /// The location of a call, from its `#fileID` and `#line`.
        public init(fileID: StaticString, line: UInt) {
            self.file = fileID
            self.line = line
        }

        /// The `#fileID` of the call that took the lock (`Module/File.swift`).
        public var fileID: String { "\(file)" }

        public var description: String { "\(file):\(line)" }

        /// Whether two origins name the same file and line.
        public static func == (lhs: Origin, rhs: Origin) -> Bool {
            lhs.line == rhs.line && lhs.fileID == rhs.fileID
        }
    }

    /// Whether and why it was released, and who to tell: changed once or twice in the lock's life,
    /// from any thread, under `stateLock` (in place: a lock is taken per exclusive mix, and a
    /// `LockedValue` would cost it an allocation).
    private let stateLock = InPlaceLock()
    // Touched only with `stateLock` held.
    @exclusivity(unchecked) private var state = LockState()
    private let handedOver = Atomic<Bool>(false)
    private let bus: Flux

    private struct LockState {
        var release: Release?
        var onRelease: (@Sendable (Release) -> Void)?
        /// How many explicit releases release the lock: one, or one per taker when several took it
        /// over (see ``handOver(to:)``).
        var claims = 1
        /// Who took the lock over.
        var takers = Takers()
        /// Whether the lock's exclusive mix has yet to run (and deliver): until it has, the lock
        /// stays held with no claim left, since takers are still being found (a taker that
        /// released at once would otherwise release the lock before the next one took it over).
        var mixPending = false
    }

    /// A taker of the lock: a reactor.
    private struct Taker {
        let id: ObjectIdentifier
        /// Whether its handler asked for the lock (read `onLock`); a reaction sent off the bus
        /// takes the lock provisionally, until its handler has run.
        var confirmed: Bool
        /// Whether it holds a claim now (a provisional one given up does not).
        var holds: Bool
    }

    /// The takers: the first inline (a lock usually has one, and an array allocated per locked
    /// dispatch cost S7 about 650 instructions), any others after it.
    private struct Takers {
        private var first: Taker?
        private var others: [Taker] = []

        var isEmpty: Bool { first == nil }

        mutating func append(_ taker: Taker) {
            if first == nil { first = taker } else { others.append(taker) }
        }

        /// Calls `body` with the taker `id`, if it is one; nil if not.
        mutating func update<R>(_ id: ObjectIdentifier, _ body: (inout Taker) -> R) -> R? {
            if first?.id == id { return body(&first!) }
            guard let index = others.firstIndex(where: { $0.id == id }) else { return nil }
            return body(&others[index])
        }
    }

    init(bus: Flux, serial: UInt64, mixer: FluxMixerName?, autorelease: Bool, origin: Origin) {
        self.bus = bus
        self.origin = origin
        self.serial = serial
        self.mixer = mixer
        self.autorelease = autorelease
        self.takenAt = .now
        state.mixPending = mixer != nil
    }

    /// Called once when the lock is released, on the releasing thread, with the reason.
    /// Set after the lock was already released, it is called at once.
    public var onRelease: (@Sendable (Release) -> Void)? {
        get { stateLock.withLock { state.onRelease } }
        set {
            let alreadyReleased: Release? = stateLock.withLock {
                if let release = state.release { return release }
                state.onRelease = newValue
                return nil
            }
            if let alreadyReleased { newValue?(alreadyReleased) }
        }
    }

    /// Whether the lock has been released.
    public var isReleased: Bool { stateLock.withLock { state.release != nil } }

    /// Releases the lock, or, when several took it over (reactors that each received its exclusive
    /// mix), one of their claims: the lock is released by the last. Releasing it again has no
    /// effect (and is reported when both were explicit).
    public func release() {
        release(.explicit)
    }

    /// Releases with a reason; returns whether this call did release it.
    @discardableResult
    package func release(_ reason: Release) -> Bool {
        let (callback, previous, stillClaimed): ((@Sendable (Release) -> Void)?, Release?, Bool) = stateLock.withLock {
            if let previous = state.release { return (nil, previous, false) }
            if reason == .explicit {
                // Every claim released while the mix still runs: a release too many.
                if state.claims == 0 { return (nil, .explicit, false) }
                if state.claims > 1 || state.mixPending {
                    // One taker of several is done, or the mix is still finding its takers: the
                    // lock is released by the last claim, or once the mix has run.
                    state.claims -= 1
                    return (nil, nil, true)
                }
            }
            state.release = reason
            defer { state.onRelease = nil }
            return (state.onRelease, nil, false)
        }
        if stillClaimed { return false }
        if let previous {
            if previous == .explicit && reason == .explicit {
                bus.report(
                    .lockReleasedTwice,
                    "lock #\(serial)\(mixerSuffix) was released twice; the second release was ignored")
            }
            return false
        }
        bus.lockReleased(self)
        callback?(reason)
        return true
    }

    /// Marks that the lock was handed to `taker`, who is now responsible for releasing it (a
    /// reactor whose handler read `reaction.onLock`), so `autorelease` does not release it. Each
    /// distinct taker holds a claim (the first takes over the one the lock has from the start):
    /// the lock is released by as many explicit releases, so that two reactors doing async work
    /// for one exclusive mix both finish before the bus resumes. The same taker again changes
    /// nothing, but confirms a provisional claim.
    ///
    /// `provisionally`: for a reaction sent off the bus, which must hold the lock until its handler
    /// has run (the bus cannot wait to see); ``settle(taker:)`` gives the claim up afterwards
    /// unless the handler read `onLock`.
    package func handOver(to taker: ObjectIdentifier, provisionally: Bool = false) {
        stateLock.withLock {
            guard state.release == nil else { return }
            let known: Bool? = state.takers.update(taker) { known in
                if !provisionally { known.confirmed = true }
                guard !known.holds else { return true }
                // A claim given up, taken again.
                known.holds = true
                return false
            }
            if let known {
                if !known { state.claims += 1 }
                return
            }
            if state.takers.isEmpty {
                // The first taker takes over the claim the lock has from the start (or claims anew
                // if that one was released while the mix ran).
                state.claims = max(state.claims, 1)
            } else {
                state.claims += 1
            }
            state.takers.append(Taker(id: taker, confirmed: !provisionally, holds: true))
        }
        handedOver.store(true, ordering: .relaxed)
    }

    /// After a reaction sent off the bus ran its handler, or will not (its reactor detached, its
    /// owner gone): gives up `taker`'s provisional claim unless its handler read `onLock`, once
    /// however many of its reactions carried the lock. The lock is released if that was the last
    /// claim and its mix has run.
    package func settle(taker: ObjectIdentifier) {
        let (releases, callback): (Bool, (@Sendable (Release) -> Void)?) = stateLock.withLock {
            guard state.release == nil else { return (false, nil) }
            let givesUp =
                state.takers.update(taker) { known in
                    guard !known.confirmed, known.holds else { return false }
                    known.holds = false
                    return true
                } ?? false
            guard givesUp else { return (false, nil) }
            state.claims -= 1
            guard state.claims == 0, !state.mixPending else { return (false, nil) }
            state.release = .explicit
            defer { state.onRelease = nil }
            return (true, state.onRelease)
        }
        guard releases else { return }
        bus.lockReleased(self)
        callback?(.explicit)
    }

    /// Hands the lock over to one anonymous taker (the observer of a bus event, say).
    package func handOver() {
        handOver(to: ObjectIdentifier(self))
    }

    package var wasHandedOver: Bool { handedOver.load(ordering: .relaxed) }

    /// Called by the bus once the lock's exclusive mix has run (delivered, or stopped by a
    /// middleware): every taker has taken it over by now. Releases it if its takers already
    /// released it during the mix, or, with `autorelease`, if nobody took it over.
    package func mixRan() {
        let (reason, callback): (Release?, (@Sendable (Release) -> Void)?) = stateLock.withLock {
            state.mixPending = false
            guard state.release == nil else { return (nil, nil) }
            let reason: Release? =
                state.claims == 0 ? .explicit : autorelease && !wasHandedOver ? .autorelease : nil
            guard let reason else { return (nil, nil) }
            state.release = reason
            defer { state.onRelease = nil }
            return (reason, state.onRelease)
        }
        guard let reason else { return }
        bus.lockReleased(self)
        callback?(reason)
    }

    private var mixerSuffix: String { mixer.map { " (mixer \($0))" } ?? "" }

    public var description: String { "FluxLock #\(serial)\(mixerSuffix)" }
}
