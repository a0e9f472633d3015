/// The installed middleware as a mix runs through them: all of them, and those that read reports
/// (all but those whose `didMix` is the default, which ignores them: they say so the first time
/// they are called, see ``FluxMixReport/ignored(by:)``; with none, the bus builds no report).
/// Immutable, made anew when the middleware change: a mix reads it through one reference.
final class FluxMiddlewarePipeline: Sendable {
    /// Every middleware, in order, each in a box the bus borrows without retaining (a mix called
    /// each middleware retained and released: its existential is loaded from an array as a copy).
    let interceptors: [Interceptor]
    let readers: [any FluxMiddleware]
    /// Whether `readers` has any (read on each mix without retaining the array).
    let hasReaders: Bool

    final class Interceptor: Sendable {
        let middleware: any FluxMiddleware

        init(_ middleware: any FluxMiddleware) {
            self.middleware = middleware
        }
    }

    init(all: [any FluxMiddleware], readers: [any FluxMiddleware]) {
        self.interceptors = all.map(Interceptor.init)
        self.readers = readers
        self.hasReaders = !readers.isEmpty
    }
}
