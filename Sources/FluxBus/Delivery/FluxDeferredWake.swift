/// Something the bus wakes when it lets go of what it holds (see
/// ``Flux/wakeWhenLettingGo(_:)``): a change stream's waiting consumer, a reactor route's held
/// owners.
package protocol FluxDeferredWake: AnyObject {
    /// Called on the bus, once per ``Flux/wakeWhenLettingGo(_:)``.
    func wake()
}
