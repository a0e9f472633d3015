import FluxBus

extension Substance {
    /// The committed changes of this substance, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await changes in substance.changes(of: ["counter"]) {
    ///     print(changes.change("counter")?.newValue() as Int?)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keys: only commits that change one of these dotted keys are yielded; all commits when
    ///     empty.
    ///   - bufferingPolicy: what happens when the consumer is slower than the commits. The bus never
    ///     waits for a consumer: with `.unbounded` (the default) every change is kept until read;
    ///     with `.bufferingNewest(n)` older changes are dropped past `n` pending (right for UI).
    /// - Returns: a stream that ends when the substance goes away; stopping to iterate (or
    ///   cancelling the consuming task) unbinds it.
    public func changes(
        of keys: [String] = [],
        bufferingPolicy: AsyncStream<SubstanceChanges>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<SubstanceChanges> {
        stream(bufferingPolicy: bufferingPolicy) { changes in
            keys.isEmpty || keys.contains(where: changes.contains) ? changes : nil
        }
    }

    /// The typed changes of one property, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await change in substance.changes(of: \.counter) { print(change.newValue) }
    /// ```
    public func changes<Value: Equatable & Sendable>(
        of keyPath: any KeyPath<S, Value> & Sendable,
        bufferingPolicy: AsyncStream<TypedChange<Value>>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<TypedChange<Value>> {
        stream(bufferingPolicy: bufferingPolicy) { changes in changes.change(keyPath) }
    }

    /// A stream of what `element` makes of each commit (nil: nothing to yield), bound to this
    /// substance until either ends.
    private func stream<Element: Sendable>(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        _ element: @escaping @Sendable (SubstanceChanges) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        let observer = CommitClosureObserver { changes in
            if let value = element(changes) { continuation.yield(value) }
        } finish: {
            continuation.finish()
        }
        // Weak: the continuation keeps this closure, and the observer keeps the continuation.
        continuation.onTermination = { [weak self, weak observer] _ in
            if let observer { self?.unbind(observer) }
        }
        bind(observer)
        return stream
    }
}
