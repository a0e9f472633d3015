/// Something the bus wakes when it lets go of what it holds (see
/// ``FluxOwnerHolds/wakeWhenLettingGo(_:)``): a change stream's waiting consumer.
package protocol FluxDeferredWake: AnyObject {
    /// Called on the bus, once per ``FluxOwnerHolds/wakeWhenLettingGo(_:)``.
    func wake()
}
