import FlaskTestSupport
import FlaskTools
import FluxBus
import Reactors
import Substances
import Testing

@Suite("Chain reactions")
struct ChainReactionTests {
    @Test("a chain over two substances commits both, then each reacts with its net change")
    func reactBoth() async {
        let bus = Flux()
        let a = Substance<AppState>(bus: bus)
        let b = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let seen = Recorder<String>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [a, b])
        reactor.handler = { _, reaction in
            // Both substances are committed before either reacts.
            seen.append("\(reaction.keys.sorted()) a=\(a.state.counter) b=\(b.state.text)")
        }
        reactor
            .mix(a) { $0.prop.counter = 10 }
            .with(b) { $0.prop.text = "text" }
            .and(a) { $0.prop.counter += 1 }
            .andReact()
        await bus.flush()
        #expect(seen.all == ["[\"counter\"] a=11 b=text", "[\"text\"] a=11 b=text"])
    }

    @Test("a chain that aborts leaves both substances unchanged and nothing reacts")
    func abortBoth() async {
        let bus = Flux()
        let a = Substance<AppState>(bus: bus)
        let b = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let seen = Recorder<Int>()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [a, b])
        reactor.handler = { _, _ in seen.append(1) }
        reactor.mixing(a) { $0.prop.counter = 10 }.mix(b) { $0.prop.counter = 20 }.andAbort()
        await bus.flush()
        #expect(a.state.counter == 0)
        #expect(b.state.counter == 0)
        #expect(seen.count == 0)
    }

    @Test("a dropped chain is aborted and reported, and the bus goes on")
    func droppedChain() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic.Code>()
        let messages = Recorder<String>()
        bus.diagnostics = {
            reports.append($0.code)
            messages.append($0.message)
        }
        let a = Substance<AppState>(name: "cart", bus: bus)
        do {
            _ = ChainReaction(bus: bus, label: "checkout").mix(a) { $0.prop.counter = 5 }
        }
        ChainReaction(bus: bus).mix(a) { $0.prop.counter = 1 }.react()
        await bus.flush()
        #expect(a.state.counter == 1)
        #expect(reports.all == [.chainUnresolved])
        // The report names the chain and its substances, which lead to the code that made it.
        #expect(messages.all.first?.contains("checkout") == true)
        #expect(messages.all.first?.contains("cart") == true, "\(messages.all)")
    }

    @Test("resolving twice is reported and ignored")
    func resolvedTwice() async {
        let bus = Flux()
        let reports = Recorder<FluxDiagnostic.Code>()
        bus.diagnostics = { reports.append($0.code) }
        let a = Substance<AppState>(bus: bus)
        let chain = ChainReaction(bus: bus).mix(a) { $0.prop.counter += 1 }
        chain.react()
        chain.react()
        chain.mix(a) { $0.prop.counter += 1 }
        await bus.flush()
        #expect(a.state.counter == 1)
        #expect(reports.all == [.chainResolvedTwice, .chainResolvedTwice])
    }

    @Test("a chain of one to seven steps runs them in order, reacted or awaited")
    func stepsInOrder() async {
        let bus = Flux()
        for length in 1...7 {
            // Digits appended in turn: the text says which steps ran, in which order.
            let a = Substance<AppState>(bus: bus)
            let chain = ChainReaction(bus: bus)
            for step in 0..<length { chain.mix(a) { $0.prop.text += "\(step)" } }
            if length.isMultiple(of: 2) {
                chain.react()
                await bus.flush()
            } else {
                _ = await chain.reactAndWait()
            }
            #expect(a.state.text == (0..<length).map(String.init).joined())
        }
    }

    @Test("nothing interleaves with a chain's steps")
    func noInterleaving() async {
        let bus = Flux()
        let a = AppSubstance(bus: bus)
        let seen = Recorder<Int>()
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [a])
        reactor.handler = { _, reaction in reaction.on("counter") { seen.append($0.newValue() ?? -1) } }
        for _ in 0..<50 {
            bus.dispatch(name(.increment))
            reactor.mix(a) { $0.prop.counter += 100 }.mix(a) { $0.prop.counter -= 99 }.react()
        }
        await bus.flush()
        #expect(a.state.counter == 100)
        #expect(seen.all == Array(1...100))
    }

    @Test("a reacted chain is freed where it was made; its steps keep their substances until they ran")
    func reactedChainLetsGo() async {
        let bus = Flux()
        let lock = bus.lock()
        let seen = Recorder<Int>()
        weak var weakChain: ChainReaction?
        weak var weakSubstance: Substance<AppState>?
        do {
            let substance = Substance<AppState>(bus: bus)
            weakSubstance = substance
            let chain = ChainReaction(bus: bus)
            weakChain = chain
            chain.mix(substance) { substance in
                substance.prop.counter = 7
                seen.append(1)
            }
            chain.mix(substance) { seen.append($0.prop.counter) }
            chain.react()
        }
        // Queued behind the lock: the work item holds the steps, not the chain.
        #expect(weakChain == nil)
        #expect(weakSubstance != nil)
        lock.release()
        await bus.flush()
        #expect(seen.all == [1, 7])
        // The batch that ran the chain may still hold its item when the flush resumes (items are
        // destroyed when their batch ends): a second flush runs in a batch after it.
        await bus.flush()
        #expect(weakSubstance == nil)
    }

    @Test("a step reaches its substance through the type it was mixed as: a subclass, a base class, a protocol")
    func stepsOfEveryStaticType() async {
        let bus = Flux()
        let reactive = AppSubstance(bus: bus)
        let asBase: Substance<AppState> = AppSubstance(bus: bus)
        let asProtocol: any AnySubstance = reactive
        let text = "captured"
        ChainReaction(bus: bus)
            .mix(reactive) { $0.prop.counter += 1 }
            .mix(asBase) { $0.prop.text = text }
            .mix(reactive) { $0.prop.counter += 10 }
            .react()
        await bus.flush()
        #expect(reactive.state.counter == 11)
        #expect(asBase.state.text == "captured")
        let outcome = await ChainReaction(bus: bus).mix(asProtocol as! AppSubstance) { $0.prop.counter = 0 }
            .reactAndWait()
        #expect(reactive.state.counter == 0)
        #expect(outcome.entries.count == 1)
    }

    @Test("a reaction to a chain's commit that calls defineMixers() runs no body, and is reported as such")
    func defineMixersFromAChainsReaction() async {
        let bus = Flux()
        let misuses = Recorder<String>()
        bus.diagnostics = { if $0.code == .substanceMisuse { misuses.append($0.message) } }
        let a = AppSubstance(bus: bus)
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [a])
        reactor.handler = { _, _ in a.defineMixers() }
        reactor.mix(a) { $0.prop.counter = 7 }.react()
        await bus.flush()
        #expect(a.state.counter == 7, "no body ran: .increment would have made it 8")
        // One report per definition the call reached (AppSubstance defines three mixers).
        #expect(misuses.all.count == 3, "\(misuses.all)")
        #expect(misuses.all.allSatisfy { $0.contains("defineMixers() was called while its commit was delivered") })
        withExtendedLifetime(reactor) {}
    }

    @Test("a chain of 100,000 steps runs them all, in one transaction")
    func longChain() async {
        let bus = Flux()
        let a = Substance<AppState>(bus: bus)
        let chain = ChainReaction(bus: bus)
        for _ in 0..<100_000 { chain.mix(a) { $0.prop.counter += 1 } }
        chain.react()
        await bus.flush()
        #expect(a.state.counter == 100_000)
    }
}

@Suite("Chain reactions across buses")
struct ChainAcrossBusesTests {
    @Test("a step for a substance of another bus is refused at mix(), reported, and the chain changes nothing")
    func refused() async {
        let busA = Flux(label: "chain.a")
        let busB = Flux(label: "chain.b")
        let a = Substance<AppState>(bus: busA)
        let b = Substance<AppState>(bus: busB)
        let reportsA = Recorder<FluxDiagnostic>()
        let reportsB = Recorder<FluxDiagnostic>()
        busA.diagnostics = { reportsA.append($0) }
        busB.diagnostics = { reportsB.append($0) }
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [a])
        reactor.mix(a) { $0.prop.counter = 1 }.mix(b) { $0.prop.counter = 1 }.react()
        // Reported where the refused substance's diagnostics go, naming both buses.
        #expect(reportsA.all.isEmpty)
        #expect(reportsB.all.map(\.code) == [.chainAcrossBuses])
        #expect(reportsB.all.first?.message.contains("\"chain.b\", the chain runs on \"chain.a\"") == true)
        await busA.flush()
        await busB.flush()
        // Never half a chain: neither substance changed.
        #expect(a.state.counter == 0)
        #expect(b.state.counter == 0)
    }

    @Test("an awaited chain that refused a step reports every substance it names as aborted")
    func awaited() async {
        let a = Substance<AppState>(bus: Flux(label: "chain.a"))
        let b = Substance<AppState>(bus: Flux(label: "chain.b"))
        b.bus.diagnostics = { _ in }
        let outcome = await ChainReaction(bus: a.bus)
            .mix(a) { $0.prop.counter = 1 }
            .mix(b) { $0.prop.text = "b" }
            .mix(a) { $0.prop.text = "a" }
            .reactAndWait()
        #expect(outcome.wasAborted)
        #expect(outcome.entries.map { $0.substance.name() } == [a.name(), b.name()])
        #expect(a.state.counter == 0 && a.state.text.isEmpty && b.state.text.isEmpty)
    }

    @Test("a chain made without a bus runs on the bus of its first substance")
    func busOfTheFirstSubstance() async {
        let bus = Flux()
        let diagnostics = Recorder<FluxDiagnostic>()
        bus.diagnostics = { diagnostics.append($0) }
        let a = Substance<AppState>(bus: bus)
        let b = Substance<AppState>(bus: bus)
        let outcome = await ChainReaction().mix(a) { $0.prop.counter = 1 }.mix(b) { $0.prop.counter = 2 }.reactAndWait()
        #expect(!outcome.wasAborted)
        #expect(a.state.counter == 1 && b.state.counter == 2)
        let reacted = ChainReaction().mix(a) { $0.prop.counter = 3 }
        reacted.react()
        await bus.flush()
        #expect(a.state.counter == 3)
        #expect(diagnostics.all.isEmpty)
    }

    @Test("an awaited chain a purge dropped returns, having changed nothing", .hangGuard)
    func purgedCommit() async {
        let bus = Flux()
        let a = Substance<AppState>(bus: bus)
        let lock = bus.lock()
        let committing = Task { await ChainReaction().mix(a) { $0.prop.counter = 1 }.reactAndWait() }
        while bus.lockReport().queuedCount < 1 { await Task.yield() }
        #expect(bus.purge() == 1)
        let outcome = await committing.value
        #expect(outcome.reachedNobody)
        lock.release()
        await bus.flush()
        #expect(a.state.counter == 0)
    }

    @Test("buses made without a label are told apart in diagnostics")
    func distinctLabels() {
        let first = Flux()
        let second = Flux()
        #expect(first.label != second.label)
        #expect(first.label.hasPrefix("flask.flux.") && second.label.hasPrefix("flask.flux."))
    }

    @Test("a chain whose substances share a bus is not affected")
    func sameBus() async {
        let bus = Flux()
        let a = Substance<AppState>(bus: bus)
        let b = Substance<AppState>(bus: bus)
        let outcome = await ChainReaction(bus: bus).mix(a) { $0.prop.counter = 1 }.mix(b) { $0.prop.counter = 2 }
            .reactAndWait()
        #expect(!outcome.wasAborted)
        #expect(a.state.counter == 1 && b.state.counter == 2)
    }
}

@Suite("Chain reactions: labels")
struct ChainLabelTests {
    @Test("a chain's label names it in the logger, the diff printer, the journal and its page, and the outcome")
    func labeled() async throws {
        let bus = Flux()
        let journal = MixJournal()
        let lines = Recorder<String>()
        bus.use(journal)
        bus.use(FluxLogger { lines.append($0) })
        bus.use(MixDiffPrinter { lines.append($0) })
        let board = Substance<AppState>(bus: bus)
        let owner = TestOwner()
        let reactor = ReactorManager().reactor(attachedTo: owner, mixing: [board])
        reactor.mix(board) { $0.prop.counter += 1 }.labeled("addCard").react()
        ChainReaction(bus: bus).mix(board) { $0.prop.text = "x" }.react()
        let outcome = await ChainReaction(bus: bus, label: "moveCard").mix(board) { $0.prop.counter += 1 }
            .reactAndWait()
        await bus.flush()
        #expect(outcome.label == "moveCard")
        #expect(journal.entries.map(\.mixer) == ["addCard", "chain", "moveCard"])
        #expect(lines.all.filter { $0.hasPrefix("mix #") && $0.contains("task addCard") }.count == 2)
        #expect(lines.all.contains { $0.contains("task moveCard") })
        #expect(journal.timelineHTML().contains(">moveCard<"))
    }
}
