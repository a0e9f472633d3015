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
    /// Whether an exclusive mix that no receiver answered releases this lock by itself.
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

    /// Whether and why it was released, who to tell, and who claims it: changed a few times in the
    /// lock's life, from any thread, under `stateLock` (in place: a lock is taken per exclusive mix,
    /// and a `LockedValue` would cost it an allocation).
    private let stateLock = InPlaceLock()
    // Touched only with `stateLock` held.
    @exclusivity(unchecked) private var state = LockState()
    private let bus: Flux

    private struct LockState {
        var release: Release?
        var onRelease: (@Sendable (Release) -> Void)?
        /// How many explicit releases release the lock: one, or one per claimant when several
        /// claimed it (see ``claim(by:tentatively:)``).
        var claims = 1
        /// Who claimed the lock.
        var claimants = Claimants()
        /// Whether the lock's exclusive mix has yet to run: until it has, the lock stays held with
        /// no claim left, since its receivers are still claiming it (one that released at once
        /// would otherwise release the lock before the next one claimed it).
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

    /// A claimant of the lock.
    private struct Claimant {
        let id: ObjectIdentifier
        /// Whether its claim is firm; a tentative one may be withdrawn.
        var firm: Bool
        /// Whether it holds a claim now (a tentative one withdrawn does not).
        var holds: Bool

        /// Claims the lock (again): returns whether it already held a claim.
        mutating func claim(firmly: Bool) -> Bool {
            if firmly { firm = true }
            defer { holds = true }
            return holds
        }

        /// Withdraws a tentative claim it holds; returns whether it did.
        mutating func withdrawTentative() -> Bool {
            guard !firm, holds else { return false }
            holds = false
            return true
        }
    }

    /// The claimants: the first inline (a lock usually has one, and an array would be allocated per
    /// exclusive mix), any others after it.
    private struct Claimants {
        private var first: Claimant?
        private var others: [Claimant] = []

        var isEmpty: Bool { first == nil }

        mutating func append(_ claimant: Claimant) {
            if first == nil { first = claimant } else { others.append(claimant) }
        }

        /// Calls `body` with the claimant `id`, if it is one; nil if not.
        mutating func update<R>(_ id: ObjectIdentifier, _ body: (inout Claimant) -> R) -> R? {
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

    /// Called once when the lock is released, on the releasing thread, with the reason; inside it,
    /// `Flux.current` is the lock's bus. Set after the lock was already released, it is called at
    /// once. The bus goes on first: the work queued behind the lock may run before or while it is
    /// called, and a `flush()` that returns after the release does not wait for it.
    public var onRelease: (@Sendable (Release) -> Void)? {
        get { stateLock.withLock { state.onRelease } }
        set {
            let alreadyReleased: Release? = stateLock.withLock {
                if let release = state.release { return release }
                state.onRelease = newValue
                return nil
            }
            if let alreadyReleased, let newValue { Flux.runningAsCurrent(bus) { newValue(alreadyReleased) } }
        }
    }

    /// Whether the lock has been released.
    public var isReleased: Bool { stateLock.withLock { state.release != nil } }

    /// Releases the lock, or, when several claimed it (receivers that each took its exclusive mix
    /// over), one of their claims: the lock is released by the last. Releasing it again has no
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
    func release(_ reason: Release, fileID: StaticString? = nil, line: UInt = 0) -> Bool {
        let (callback, previous): (ReleaseCallback??, Release?) = stateLock.withLock {
            if let previous = state.release { return (nil, previous) }
            if reason == .explicit {
                // Every claim released while the mix still runs: a release too many.
                if state.claims == 0 { return (nil, .explicit) }
                // One claimant of several is done, or the mix is still being claimed.
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
        // Run as the lock's bus's code: `Flux.current` there is the lock's bus, on any thread.
        if let callback { Flux.runningAsCurrent(bus) { callback(reason) } }
    }

    /// Records that `claimant`, a receiver of the lock's exclusive mix, is now responsible for
    /// releasing it, so `autorelease` does not release it. Each distinct claimant holds a claim
    /// (the first takes over the one the lock has from the start), and the lock is released by as
    /// many explicit releases: several receivers doing async work for one exclusive mix all finish
    /// before the bus resumes. The same claimant again changes nothing, but makes a tentative
    /// claim firm.
    ///
    /// `tentatively`: for a claimant that cannot tell yet whether it will keep the lock (the bus
    /// must not release it meanwhile); ``withdrawTentativeClaim(of:)`` gives the claim up unless
    /// it was made firm since.
    package func claim(by claimant: ObjectIdentifier, tentatively: Bool = false) {
        stateLock.withLock {
            guard state.release == nil else { return }
            if let held = state.claimants.update(claimant, { $0.claim(firmly: !tentatively) }) {
                // A claim withdrawn, made again.
                if !held { state.claims += 1 }
                return
            }
            // The first claimant takes over the claim the lock has from the start (or claims anew
            // if that one was released while the mix ran).
            state.claims = state.claimants.isEmpty ? max(state.claims, 1) : state.claims + 1
            state.claimants.append(Claimant(id: claimant, firm: !tentatively, holds: true))
        }
    }

    /// Claims the lock for one anonymous claimant (the observer of a bus event, say).
    func claim() {
        claim(by: ObjectIdentifier(self))
    }

    /// Withdraws `claimant`'s tentative claim, unless it was made firm, however many times it was
    /// claimed. The lock is released if that was the last claim and its mix has run.
    package func withdrawTentativeClaim(of claimant: ObjectIdentifier) {
        let callback: ReleaseCallback?? = stateLock.withLock {
            guard state.release == nil, state.claimants.update(claimant, { $0.withdrawTentative() }) == true,
                state.giveUpClaim()
            else { return nil }
            return .some(state.markReleased(.explicit))
        }
        if let callback { announce(.explicit, callback) }
    }

    /// Called by the bus once the lock's exclusive mix has run (delivered, or stopped by a
    /// middleware): every receiver has claimed it by now. Releases it if its claimants already
    /// released it during the mix, or, with `autorelease`, if nobody claimed it.
    func mixRan() {
        let (reason, callback): (Release?, ReleaseCallback?) = stateLock.withLock {
            state.mixPending = false
            guard state.release == nil else { return (nil, nil) }
            let reason: Release? =
                state.claims == 0 ? .explicit : autorelease && state.claimants.isEmpty ? .autorelease : nil
            guard let reason else { return (nil, nil) }
            return (reason, state.markReleased(reason))
        }
        if let reason { announce(reason, callback) }
    }

    private var mixerSuffix: String { mixer.map { " (mixer \($0))" } ?? "" }

    public var description: String { "FluxLock #\(serial)\(mixerSuffix)" }
}
