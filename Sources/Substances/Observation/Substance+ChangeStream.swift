import FluxBus

extension Substance {
    /// The committed changes of this substance, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await changes in substance.changes(of: ["counter"]) {
    ///     print(changes.change("counter")?.newValue() as Int? ?? 0)
    /// }
    /// ```
    ///
    /// The stream yields the commits of the work items that have not started when it is made, and
    /// no earlier ones: make it before you dispatch what it must see (not inside a `Task` started
    /// after the dispatch, which may make it too late), and read the current state from
    /// ``state`` for what came before.
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
        bufferingPolicy: SubstanceChangeStream<SubstanceChanges>.BufferingPolicy = .unbounded
    ) -> SubstanceChangeStream<SubstanceChanges> {
        // The element type is concrete here, so the closure called at each commit is specialized:
        // no generic type is looked up at run time on the bus.
        let core = StreamCore<SubstanceChanges>(policy: bufferingPolicy, bus: bus)
        return connect(core) { changes in
            if keys.isEmpty || keys.contains(where: changes.contains) { core.yield(changes) }
        }
    }

    /// The typed changes of one property, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await change in substance.changes(of: \.counter) { print(change.newValue) }
    /// ```
    ///
    /// Like the stream of dotted keys, it yields the commits of the work items
    /// that have not started when it is made, and no earlier ones.
    public func changes<Value: Equatable & Sendable>(
        of keyPath: any KeyPath<S, Value> & Sendable,
        bufferingPolicy: SubstanceChangeStream<TypedChange<Value>>.BufferingPolicy = .unbounded
    ) -> SubstanceChangeStream<TypedChange<Value>> {
        let core = StreamCore<TypedChange<Value>>(policy: bufferingPolicy, bus: bus)
        return connect(core) { changes in
            if let change = changes.change(keyPath) { core.yield(change) }
        }
    }

    /// Binds `forward`, called with each commit, until the substance or the stream's consumer goes
    /// away; returns the stream over `core`.
    private func connect<Element: Sendable>(
        _ core: StreamCore<Element>, forward: @escaping @Sendable (SubstanceChanges) -> Void
    ) -> SubstanceChangeStream<Element> {
        let observer = CommitClosureObserver(forward) {
            core.finish()
        }
        // Weak: the observer keeps the core, and the core this closure.
        core.onFinish = { [weak self, weak observer] in
            if let observer { self?.unbind(observer) }
        }
        bind(observer)
        return SubstanceChangeStream(consumer: StreamConsumer(core: core))
    }
}
