/// State of a bus that only its work items touch.
///
/// `@unchecked Sendable`: read and written only by work items, which run one at a time (the
/// middleware list is changed by exclusive-lane tasks, never while an item runs).
final class FluxConfinedState: @unchecked Sendable {
    /// The receipt of the awaited mix running now.
    @exclusivity(unchecked) var activeReceipt: FluxReceipt?
    /// The installed middleware, in order.
    @exclusivity(unchecked) var middleware: [any FluxMiddleware] = []
    /// The receipt of mixes seen by middleware outside an awaited mix, reused from mix to mix.
    let mixReceipt = FluxReceipt()
    /// The number of mixes middleware have seen.
    @exclusivity(unchecked) var mixSerial: UInt64 = 0
}
