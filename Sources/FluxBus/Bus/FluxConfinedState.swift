/// The state of a bus that only its work items touch: the middleware and the receipts of mixes.
///
/// `@unchecked Sendable`: its one mutable property is ``BusConfined``; the reused receipt is
/// `Sendable`.
final class FluxConfinedState: @unchecked Sendable {
    struct State {
        /// The receipt of the awaited mix running now.
        var activeReceipt: FluxReceipt?
        /// The installed middleware, in order; changed by exclusive-lane tasks, between items.
        var middleware: [any FluxMiddleware] = []
        /// The number of mixes middleware have seen.
        var mixSerial: UInt64 = 0
        /// The number of work items run: tells which commits one item made (a chain's, say).
        var itemSerial: UInt64 = 0
    }

    @exclusivity(unchecked) var state: BusConfined<State>
    /// The receipt of mixes seen by middleware outside an awaited mix, reused from mix to mix.
    let mixReceipt = FluxReceipt()

    init(on drainer: FluxDrainer) {
        state = BusConfined(State(), on: drainer, "Flux's middleware and receipts")
    }
}
