import FlaskLocking

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
        /// ``FluxLock/release(fileID:line:)`` was called.
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

        /// Gives up one claim; returns whether that releases the lock now: it was the last, and
        /// the mix has run (until then, a lock with no claim left stays held).
        mutating func giveUpClaim() -> Bool {
            if claims > 1 || mixPending {
                claims -= 1
                return false
            }
            claims = 0
            return true
        }

        /// Marks the lock released; returns who to tell.
        mutating func markReleased(_ reason: Release) -> ReleaseCallback? {
            release = reason
            defer { onRelease = nil }
            return onRelease
        }
    }

    private typealias ReleaseCallback = @Sendable (Release) -> Void

    /// A taker of the lock: a reactor.
    private struct Taker {
        let id: ObjectIdentifier
        /// Whether its handler asked for the lock (read `onLock`); a reaction sent off the bus
        /// takes the lock provisionally, until its handler has run.
        var confirmed: Bool
        /// Whether it holds a claim now (a provisional one given up does not).
        var holds: Bool

        /// Takes the lock (again): returns whether it already held a claim.
        mutating func take(confirming: Bool) -> Bool {
            if confirming { confirmed = true }
            defer { holds = true }
            return holds
        }

        /// Gives up a provisional claim it holds; returns whether it did.
        mutating func giveUpProvisional() -> Bool {
            guard !confirmed, holds else { return false }
            holds = false
            return true
        }
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
    ///
    /// - Parameters:
    ///   - fileID: where it is released, for the report of a second release; leave the default.
    ///   - line: where it is released; leave the default.
    public func release(fileID: StaticString = #fileID, line: UInt = #line) {
        release(.explicit, fileID: fileID, line: line)
    }

    /// Releases with a reason; returns whether this call did release it. `fileID` and `line` say
    /// where an explicit release was called, for the report of a second one (made into text only
    /// then: a release is on the path of every locked dispatch).
    @discardableResult
    package func release(_ reason: Release, fileID: StaticString? = nil, line: UInt = 0) -> Bool {
        let (callback, previous): (ReleaseCallback??, Release?) = stateLock.withLock {
            if let previous = state.release { return (nil, previous) }
            if reason == .explicit {
                // Every claim released while the mix still runs: a release too many.
                if state.claims == 0 { return (nil, .explicit) }
                // One taker of several is done, or the mix is still finding its takers.
                guard state.giveUpClaim() else { return (nil, nil) }
            }
            return (.some(state.markReleased(reason)), nil)
        }
        if let callback {
            announce(reason, callback)
            return true
        }
        if previous == .explicit && reason == .explicit {
            let place = fileID.map { " at \($0):\(line)" } ?? ""
            bus.report(
                .lockReleasedTwice,
                "lock #\(serial)\(mixerSuffix) was released twice; the second release\(place) was ignored")
        }
        return false
    }

    /// Tells the bus and the `onRelease` callback that the lock was released (outside the lock).
    private func announce(_ reason: Release, _ callback: ReleaseCallback?) {
        bus.lockReleased(self)
        callback?(reason)
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
            if let held = state.takers.update(taker, { $0.take(confirming: !provisionally) }) {
                // A claim given up, taken again.
                if !held { state.claims += 1 }
                return
            }
            // The first taker takes over the claim the lock has from the start (or claims anew if
            // that one was released while the mix ran).
            state.claims = state.takers.isEmpty ? max(state.claims, 1) : state.claims + 1
            state.takers.append(Taker(id: taker, confirmed: !provisionally, holds: true))
        }
    }

    /// Hands the lock over to one anonymous taker (the observer of a bus event, say).
    package func handOver() {
        handOver(to: ObjectIdentifier(self))
    }

    /// After a reaction sent off the bus ran its handler, or will not (its reactor detached, its
    /// owner gone): gives up `taker`'s provisional claim unless its handler read `onLock`, once
    /// however many of its reactions carried the lock. The lock is released if that was the last
    /// claim and its mix has run.
    package func settle(taker: ObjectIdentifier) {
        let callback: ReleaseCallback?? = stateLock.withLock {
            guard state.release == nil, state.takers.update(taker, { $0.giveUpProvisional() }) == true,
                state.giveUpClaim()
            else { return nil }
            return .some(state.markReleased(.explicit))
        }
        if let callback { announce(.explicit, callback) }
    }

    /// Called by the bus once the lock's exclusive mix has run (delivered, or stopped by a
    /// middleware): every taker has taken it over by now. Releases it if its takers already
    /// released it during the mix, or, with `autorelease`, if nobody took it over.
    package func mixRan() {
        let (reason, callback): (Release?, ReleaseCallback?) = stateLock.withLock {
            state.mixPending = false
            guard state.release == nil else { return (nil, nil) }
            let reason: Release? =
                state.claims == 0 ? .explicit : autorelease && state.takers.isEmpty ? .autorelease : nil
            guard let reason else { return (nil, nil) }
            return (reason, state.markReleased(reason))
        }
        if let reason { announce(reason, callback) }
    }

    private var mixerSuffix: String { mixer.map { " (mixer \($0))" } ?? "" }

    public var description: String { "FluxLock #\(serial)\(mixerSuffix)" }
}
