import FluxBus

extension Substance {
    /// Remembers a state to roll back to: the committed state, or `state` if given.
    ///
    /// Runs as a bus item, after the mixes queued before it; `completion` is called on the bus.
    public func captureState(_ state: S? = nil, completion: (@Sendable () -> Void)? = nil) {
        bus.perform { [self] in
            captured.value = state ?? committedState
            completion?()
        }
    }

    /// Restores the captured state as one transaction (reactors see the change) and forgets it.
    /// Without a captured state it does nothing. `completion` is called on the bus once done.
    public func rollbackState(completion: (@Sendable () -> Void)? = nil) {
        bus.perform(mix: "rollback") { [self] in
            if let state = captured.value {
                captured.value = nil
                replaceState(with: state)
            }
            completion?()
        }
    }

    /// Forgets the captured state: the changes since the capture are kept.
    public func commitState(completion: (@Sendable () -> Void)? = nil) {
        bus.perform { [self] in
            captured.value = nil
            completion?()
        }
    }
}
