/// A reactor's handler in a box, so the bus can call it without retaining it.
final class ReactorHandlerBox<Owner: AnyObject>: Sendable {
    let call: Reactor<Owner>.Handler

    init(_ call: @escaping Reactor<Owner>.Handler) {
        self.call = call
    }
}
