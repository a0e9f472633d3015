import FluxBus

/// The bookkeeping of `defineMixers()` runs: registration at creation, or the dispatch of one mixer.
/// Not nested in the generic substance class, nor generic: its metadata would be looked up at run
/// time on every dispatch.
struct DefineMixersRun {
    /// The mixer being dispatched (an `M`), or the type of the action being dispatched, and its
    /// event, while `defineMixers()` runs for it.
    var runningMixer: UnsafeRawPointer?
    var runningAction: ObjectIdentifier?
    var runningEvent: UnsafePointer<FluxEvent>?
    /// Where in `defineMixers()` the running mixer is defined (its position among the `define`
    /// calls, learned at registration), or -1 to compare every definition with it.
    var runningPosition = -1
    /// The position of the next `define` call.
    var nextPosition = 0
    /// Whether a definition matched the running mixer.
    var ranBody = false
    /// Whether `defineMixers()` defines a mixer twice (then every definition is compared).
    var definesTwice = false

    mutating func start(mixer: UnsafeRawPointer, _ event: UnsafePointer<FluxEvent>, at position: Int) {
        runningMixer = mixer
        start(event, at: position)
    }

    mutating func start(action: ObjectIdentifier, _ event: UnsafePointer<FluxEvent>, at position: Int) {
        runningAction = action
        start(event, at: position)
    }

    private mutating func start(_ event: UnsafePointer<FluxEvent>, at position: Int) {
        runningEvent = event
        runningPosition = definesTwice ? -1 : position
        ranBody = false
        nextPosition = 0
    }

    /// Ends a dispatch: the borrowed mixer and event are no longer valid.
    mutating func finish() {
        runningMixer = nil
        runningAction = nil
        runningEvent = nil
    }

    /// After a run by position that found nothing there: prepares a run that compares every
    /// definition and returns true.
    mutating func mustCompareAll() -> Bool {
        guard !ranBody && runningPosition >= 0 else { return false }
        runningPosition = -1
        nextPosition = 0
        return true
    }
}
