/// Something the bus wakes when it lets go of what it holds (see
/// ``Flux/wakeWhenLettingGo(_:)``): a stream's waiting consumer, a route's held
/// owners.
package protocol FluxDeferredWake: AnyObject {
    /// Called on the bus, once per ``Flux/wakeWhenLettingGo(_:)``.
    func wake()
}
