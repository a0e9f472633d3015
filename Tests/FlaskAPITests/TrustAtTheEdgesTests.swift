import FlaskAPI
import FlaskTestSupport
import FlaskTools
import Foundation
import Synchronization
import Testing

/// A secret that must never reach a text the library writes unless the user opts in.
private let secret = "hunter2-\(UUID().uuidString)"

private struct Account: State {
    var user = ""
    var logins = 0
}

private enum AuthMixers: SubstanceMixer {
    case login(password: String)
    case forgetful(password: String)
}

/// A structure as a mixer: its description lists its stored properties.
private struct ResetPassword: SubstanceMixer {
    let password: String
}

private final class Auth: ReactiveSubstance<Account, AuthMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .login(password: secret)) { _, react, _ in
            self.prop.logins += 1
            react()
        }
        // Returns without react() or abort(): reported as unresolved.
        define(mix: .forgetful(password: secret)) { _, _, _ in }
    }
}

private final class Reset: ReactiveSubstance<Account, ResetPassword>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: ResetPassword(password: secret)) { _, react, _ in
            self.prop.user = "reset"
            react()
        }
    }
}

/// A mixer whose own description puts the value first, with no parenthesis to cut at.
private enum FancyMixers: SubstanceMixer, CustomStringConvertible {
    case signIn(password: String)

    var description: String {
        switch self {
        case .signIn(let password): "sign in with \(password)"
        }
    }
}

/// A structure mixer whose description is its value.
private struct Token: SubstanceMixer, CustomStringConvertible {
    let value: String
    var description: String { value }
}

private final class Fancy: ReactiveSubstance<Account, FancyMixers>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: .signIn(password: secret)) { _, react, _ in
            self.prop.logins += 1
            react()
        }
    }
}

private final class Tokens: ReactiveSubstance<Account, Token>, @unchecked Sendable {
    override func defineMixers() {
        define(mix: Token(value: secret)) { _, react, _ in
            self.prop.user = "token"
            react()
        }
    }
}

/// Everything a bus writes as text: diagnostics and a logger's lines.
private final class Texts: Sendable {
    let diagnostics = Recorder<FluxDiagnostic>()
    let lines = Recorder<String>()

    init(_ bus: Flux) {
        bus.diagnostics = { [diagnostics] in diagnostics.append($0) }
        bus.use(FluxLogger(output: { [lines] in lines.append($0) }))
    }

    var all: [String] { diagnostics.all.map(\.description) + lines.all }
}

@Suite("Trust at the edges: no user value in text, misuse located")
struct TrustAtTheEdgesTests {
    @Test("a mixer is named by its type and case only: logs, lock reports, diagnostics and the journal")
    func mixerNamesHoldNoValues() async throws {
        let bus = Flux(label: "secrets")
        let texts = Texts(bus)
        let journal = MixJournal(recordsPayloadValues: false)
        bus.use(journal)
        let auth = Auth(bus: bus)
        let reset = Reset(bus: bus)
        Flask.substances(reactTo: AuthMixers.login(password: secret), on: bus)
        Flask.substances(reactTo: AuthMixers.forgetful(password: secret), on: bus)
        Flask.substances(reactTo: ResetPassword(password: secret), on: bus)
        // The lock holds the main lane back: read the report before releasing it, then wait.
        let lock = Flask.lock(withMixer: AuthMixers.login(password: secret), autorelease: false, on: bus)
        let report = bus.lockReport().description
        lock.release()
        await bus.flush()
        #expect(auth.state.logins == 2)
        #expect(reset.state.user == "reset")

        let all = texts.all + [report] + journal.entries.map { "\($0.mixer) \($0.mixerDescription)" }
        for text in all { #expect(!text.contains(secret), "\(text)") }
        #expect(texts.lines.all.contains { $0.contains(" AuthMixers.login ") })
        #expect(texts.lines.all.contains { $0.contains(" ResetPassword ") })
        #expect(report.contains("(mixer AuthMixers.login)"))
        #expect(
            texts.diagnostics.all.contains { $0.code == .mixerWithValues && $0.message.contains("AuthMixers.login") })
        #expect(
            texts.diagnostics.all.contains {
                $0.code == .mixerUnresolved && $0.message.contains("AuthMixers.forgetful")
            })
        #expect(journal.entries.map(\.mixerDescription).contains("AuthMixers.login"))
        // A structure mixer keeps its type's name: it is not taken for a typed action.
        let resetEntry = try #require(journal.entries.first { $0.domain == "ResetPassword" })
        #expect(resetEntry.mixer == "ResetPassword" && !resetEntry.isAction, "\(resetEntry.mixer)")
        #expect(resetEntry.mixerDescription == "ResetPassword")
        #expect(!journal.recordsStates, "a journal that keeps no values keeps no states either")
        // The opt-in still shows them, and the bus still tells the values apart.
        #expect(Flask.mixerName(AuthMixers.login(password: "a")) != Flask.mixerName(AuthMixers.login(password: "b")))
        #expect(Flask.mixerName(AuthMixers.login(password: "a")).name.contains("\"a\""))
    }

    @Test("a mixer's own description never shows its values: its case or type is named instead")
    func customDescriptions() async {
        let bus = Flux(label: "fancy")
        let texts = Texts(bus)
        let journal = MixJournal(recordsPayloadValues: false)
        bus.use(journal)
        let fancy = Fancy(bus: bus)
        let tokens = Tokens(bus: bus)
        Flask.substances(reactTo: FancyMixers.signIn(password: secret), on: bus)
        Flask.substances(reactTo: Token(value: secret), on: bus)
        let lock = Flask.lock(withMixer: FancyMixers.signIn(password: secret), autorelease: false, on: bus)
        let report = bus.lockReport().description
        lock.release()
        await bus.flush()
        #expect(fancy.state.logins == 2, "a dispatch of the same values still reaches its definition")
        #expect(tokens.state.user == "token")
        let all = texts.all + [report] + journal.entries.map { "\($0.mixer) \($0.mixerDescription)" }
        for text in all { #expect(!text.contains(secret), "\(text)") }
        #expect(texts.lines.all.contains { $0.contains(" FancyMixers.signIn ") })
        #expect(texts.lines.all.contains { $0.contains(" Token ") })
        #expect(report.contains("(mixer FancyMixers.signIn)"))
    }

    @Test("a very long substance name is cut in every report that names it")
    func longNames() async {
        let bus = Flux(label: "long")
        let codes = Recorder<FluxDiagnostic>()
        bus.diagnostics = { codes.append($0) }
        let name = String(repeating: "長", count: 10_000)
        let substance = Substance<Account>(name: name, bus: bus)
        substance.prop.user = "outside a transaction"
        let owner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: substance)
        reactor.handler = { _, reaction in reaction.on("no.such.key") { _ in } }
        await reactor.mix(substance) { $0.prop.logins += 1 }.reactAndWait()
        await bus.flush()
        #expect(Set(codes.all.map(\.code)).isSuperset(of: [.propOutsideTransaction, .unknownKey]))
        for diagnostic in codes.all {
            #expect(diagnostic.message.count < 400, "\(diagnostic.code): \(diagnostic.message.count) characters")
            #expect(diagnostic.message.contains("(10000 characters)"), "\(diagnostic.message.prefix(200))")
        }
        withExtendedLifetime(reactor) {}
    }

    @Test("misuse reports name the caller's file and line, on the bus concerned")
    func misuseIsLocated() async {
        let bus = Flux(label: "misuse")
        let texts = Texts(bus)
        let lock = bus.lock()
        lock.release()
        lock.release()
        let releasedAt = #line - 1
        final class Owner: Sendable {}
        let owner = Owner()
        _ = Flask.getReactor(attachedTo: owner, on: bus)
        let askedAt = #line - 1
        Flask.detachReactor(from: owner, on: bus)
        let detachedAt = #line - 1
        let auth = Auth(bus: bus)
        auth.prop.logins = 1
        let propAt = #line - 1
        await bus.flush()
        let messages = texts.diagnostics.all.map(\.message)
        // A property has no caller location; debug builds on Linux find it on the stack.
        #if os(Linux)
            if isDebugBuild {
                #expect(
                    messages.contains {
                        $0.contains("`prop` used") && $0.contains("TrustAtTheEdgesTests.swift:\(propAt)")
                    })
            }
        #endif
        _ = propAt
        #expect(
            messages.contains {
                $0.contains("released twice") && $0.contains("TrustAtTheEdgesTests.swift:\(releasedAt)")
            })
        #expect(messages.contains { $0.contains("getReactor") && $0.contains("TrustAtTheEdgesTests.swift:\(askedAt)") })
        #expect(
            messages.contains {
                $0.contains("detachReactor") && $0.contains("TrustAtTheEdgesTests.swift:\(detachedAt)")
            })
    }

    @Test("several reactors on one owner are reported on their substances' bus")
    func reactorMisuseOnItsBus() async {
        let bus = Flux(label: "reactors")
        let texts = Texts(bus)
        final class Owner: Sendable {}
        let owner = Owner()
        let auth = Auth(bus: bus)
        let first = Flask.reactor(attachedTo: owner, mixing: [auth])
        let second = Flask.reactor(attachedTo: owner, mixing: [auth])
        let reactor = Flask.getReactor(attachedTo: owner)
        #expect(reactor === first)
        await bus.flush()
        #expect(texts.diagnostics.all.contains { $0.code == .reactorMisuse && $0.message.contains("2 reactors") })
        Flask.detachReactor(from: owner)
        _ = second
    }

    @Test("writing prop outside a transaction keeps one discarded copy, not one per write")
    func propOutsideTransactionIsBounded() {
        struct Tracked: State {
            var payload = LiveCopy()
        }
        let bus = Flux(label: "prop")
        bus.diagnostics = { _ in }
        let substance = Substance<Tracked>(bus: bus)
        let committed = substance.state.payload
        let before = LiveCopy.alive
        // Each write stores a fresh payload in the discarded copy: kept copies would keep theirs.
        for _ in 0..<1_000 { substance.prop.payload = LiveCopy() }
        #expect(LiveCopy.alive - before <= 1, "\(LiveCopy.alive - before) discarded copies are kept")
        #expect(substance.state.payload === committed, "the writes were discarded")
        withExtendedLifetime(substance) {}
    }
}

@Suite("Mix reports count reactors and tools apart")
struct ReactorCountTests {
    @Test("two reactors and an undo history: (2 reactors, 1 tool)")
    func reactorsAndTools() async {
        let bus = Flux(label: "counts")
        let lines = Recorder<String>()
        bus.use(FluxLogger(output: { lines.append($0) }))
        let auth = Auth(bus: bus)
        final class Owner: Sendable {}
        let first = Owner()
        let second = Owner()
        _ = Flask.reactor(attachedTo: first, mixing: [auth])
        _ = Flask.reactor(attachedTo: second, mixing: [auth])
        let history = SubstanceHistory(of: auth)
        Flask.substances(reactTo: AuthMixers.login(password: secret), on: bus)
        await bus.flush()
        #expect(lines.all.last?.contains("(2 reactors, 1 tool)") == true, "\(lines.all)")
        Flask.detachReactor(from: first)
        Flask.detachReactor(from: second)
        Flask.substances(reactTo: AuthMixers.login(password: secret), on: bus)
        await bus.flush()
        #expect(lines.all.last?.contains("(0 reactors, 1 tool)") == true, "\(lines.all)")
        withExtendedLifetime(history) {}
    }
}

/// A payload that counts its live instances, to see how many copies of a state are kept.
private final class LiveCopy: Codable, Sendable {
    private static let count = Mutex(0)
    static var alive: Int { count.withLock { $0 } }
    init() { Self.count.withLock { $0 += 1 } }
    required init(from decoder: any Decoder) throws { Self.count.withLock { $0 += 1 } }
    func encode(to encoder: any Encoder) throws {}
    deinit { Self.count.withLock { $0 -= 1 } }
}
