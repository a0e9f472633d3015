import FluxBus

/// What ``SubstanceChanges/substance`` returns once the substance has gone away: a substance of
/// nothing, which binds nothing and mixes nothing.
final class GoneSubstance: AnySubstance {
    let bus: Flux
    let stateTypeName: String

    init(bus: Flux, stateTypeName: String) {
        self.bus = bus
        self.stateTypeName = stateTypeName
    }

    func name() -> String { "\(stateTypeName) (gone)" }
    func bind(_ observer: any SubstanceObserver) {}
    func setInterest(of observer: any SubstanceObserver, keys: [String]?) {}
    func unbind(_ observer: any SubstanceObserver) {}
    func isValid(key: String) -> Bool { true }
}
