/// The state of a bus that only its work items touch: the middleware and the receipts of mixes.
///
/// Its one mutable property is ``BusConfined``; the reused receipt is `Sendable`.
final class FluxConfinedState: Sendable {
    struct State {
        /// The receipt of the awaited mix running now.
        var activeReceipt: FluxReceipt?
        /// The installed middleware, in order; changed by exclusive-lane tasks, between items.
        var middleware: [any FluxMiddleware] = [] {
            didSet { updatePipeline() }
        }
        /// The middleware known to ignore reports.
        var ignoringReports: Set<ObjectIdentifier> = [] {
            didSet { updatePipeline() }
        }
        /// The middleware found to ignore reports while a mix ran (`FluxMixReport.ignored(by:)`),
        /// added to `ignoringReports` once the mix is over: the mix borrows the pipeline that adding
        /// them replaces.
        var newlyIgnoring: [ObjectIdentifier] = []
        /// The middleware as a mix runs through them, nil when there is none.
        private(set) var pipeline: FluxMiddlewarePipeline?
        /// The number of mixes middleware have seen.
        var mixSerial: UInt64 = 0
        /// The number of work items run: tells what one item did (a task's steps, say).
        var itemSerial: UInt64 = 0
        /// Whether a task queued as a mix is running now.
        var isRunningMix = false
        /// The label and origin of the task queued as a mix running now, for what its steps do;
        /// those of the last one outside one. Kept apart from the flag rather than as an optional:
        /// setting and clearing an optional of both went through the runtime's value witnesses, in
        /// every chain (scenario S6).
        var lastMix = FluxRunningMix(label: FluxItem.taskName, origin: nil)

        private mutating func updatePipeline() {
            pipeline =
                middleware.isEmpty
                ? nil
                : FluxMiddlewarePipeline(
                    all: middleware, readers: middleware.filter { !ignoringReports.contains(ObjectIdentifier($0)) })
        }
    }

    let state: BusConfined<State>
    /// The receipt of mixes seen by middleware outside an awaited mix, reused from mix to mix.
    let mixReceipt = FluxReceipt(crossesThreads: false)

    init(on drainer: FluxDrainer) {
        state = BusConfined(State(), on: drainer, "Flux's middleware and receipts")
    }
}

/// A task queued as a mix, as the work it does tells it: its label and where it was queued from.
package struct FluxRunningMix: Sendable {
    package let label: FluxMixerName
    package let origin: FluxOrigin?
}
