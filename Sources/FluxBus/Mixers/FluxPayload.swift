/// The payload a mixer carries: string keys and `Sendable` values, as the seed's
/// `payload: ["username": "foo"]` literal.
public typealias FluxPayload = [String: any Sendable]
