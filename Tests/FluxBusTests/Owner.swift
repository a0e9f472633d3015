/// A plain owner for observers.
final class Owner: Sendable {}
