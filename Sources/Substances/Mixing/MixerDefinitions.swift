import FluxBus

/// The mixers and actions of a reactive substance made without a subclass, defined once when it
/// is created: `define` in `ReactiveSubstance(name:archive:bus:mixers:)`.
///
/// ```swift
/// let app = ReactiveSubstance<AppState, EnvMixers>(name: "app") { define in
///     define(mix: .Login) { app, payload, react, abort in
///         app.prop.title = "signed"
///         react()
///     }
///     define(Rename.self) { app, action, react, abort in
///         app.prop.title = action.title
///         react()
///     }
/// }
/// ```
///
/// Each body is `@Sendable` and receives the substance it runs on, so it need not capture it: the
/// compiler checks what it does capture, and the substance has no stored property of yours that
/// could race. Bodies are stored: a dispatch calls the matching one directly. A mixer or action
/// defined twice runs each of its bodies, in order, each its own transaction.
public struct MixerDefinitions<S: State, M: SubstanceMixer> {
    /// A mixer body: the substance, the dispatch's payload, and `react`/`abort` to resolve the
    /// transaction.
    public typealias MixBody =
        @Sendable (
            _ substance: ReactiveSubstance<S, M>, _ payload: FluxPayload?, _ react: MixerResolution,
            _ abort: MixerResolution
        ) -> Void
    /// An action body: the substance, the action, and `react`/`abort` to resolve the transaction.
    public typealias ActionBody<A: FlaskAction> =
        @Sendable (
            _ substance: ReactiveSubstance<S, M>, _ action: A, _ react: MixerResolution, _ abort: MixerResolution
        )
        -> Void

    /// Runs one body for the dispatch of `event` on the substance, as one transaction.
    @usableFromInline
    typealias Run = @Sendable (ReactiveSubstance<S, M>, borrowing FluxEvent) -> Void

    /// One definition, in the order it was made.
    @usableFromInline
    struct Definition {
        let name: FluxMixerName
        /// The mixer, for the report of a case with associated values (nil for an action).
        let mixer: M?
        let run: Run

        @usableFromInline
        init(name: FluxMixerName, mixer: M?, run: @escaping Run) {
            self.name = name
            self.mixer = mixer
            self.run = run
        }
    }

    @usableFromInline
    private(set) var definitions: [Definition] = []

    init() {}

    // The two `callAsFunction` are inlinable so that each body's run is made where the body is
    // defined, with its types known: made here, generically, it looked up the action's type
    // metadata at run time on every dispatch.

    /// Reacts to `mixer` with `body`, run on the bus as one transaction.
    @inlinable
    public mutating func callAsFunction(mix mixer: M, _ body: @escaping MixBody) {
        definitions.append(
            Definition(name: mixer.busName, mixer: mixer) { substance, event in
                let serial = substance.beginRun()
                body(
                    substance, event.payload,
                    MixerResolution(resolver: substance.resolver, serial: serial, commits: true),
                    MixerResolution(resolver: substance.resolver, serial: serial, commits: false))
                substance.endRun(event: event)
            })
    }

    /// Reacts to actions of type `A` with `body`, run on the bus as one transaction.
    @inlinable
    public mutating func callAsFunction<A: FlaskAction>(_ action: A.Type, _ body: @escaping ActionBody<A>) {
        definitions.append(
            Definition(name: A.busName, mixer: nil) { substance, event in
                guard let action = event.value(as: A.self) else {
                    return substance.reportMissingAction(named: A.busName)
                }
                let serial = substance.beginRun()
                body(
                    substance, action, MixerResolution(resolver: substance.resolver, serial: serial, commits: true),
                    MixerResolution(resolver: substance.resolver, serial: serial, commits: false))
                substance.endRun(event: event)
            })
    }

    /// The bodies of each name, in the order of its first definition, each list in definition order.
    func byName() -> [(name: FluxMixerName, mixer: M?, runs: [Run])] {
        var groups: [(name: FluxMixerName, mixer: M?, runs: [Run])] = []
        for definition in definitions {
            if let index = groups.firstIndex(where: { $0.name == definition.name }) {
                groups[index].runs.append(definition.run)
            } else {
                groups.append((definition.name, definition.mixer, [definition.run]))
            }
        }
        return groups
    }
}
