import FlaskLocking
import FluxBus

/// The consuming side's hold on a stream: when the stream and its iterators are gone, it ends the
/// stream (which unbinds it from the substance).
final class StreamConsumer<Element: Sendable>: Sendable {
    let core: StreamCore<Element>

    init(core: StreamCore<Element>) {
        self.core = core
    }

    deinit {
        core.finish()
    }
}
