/// The keys of a state, for `reaction.on(AppState.prop.counter)`.
///
/// A plain enumeration works (`enum prop: StateProp { case counter }`: the key is the case name);
/// an enumeration with `String` raw values uses the raw value, which is faster.
public protocol StateProp: Sendable {
    /// The dotted key this case names.
    var key: String { get }
}

extension StateProp {
    /// The case's name.
    public var key: String { String(describing: self) }
}

extension StateProp where Self: RawRepresentable, RawValue == String {
    /// The case's raw value.
    public var key: String { rawValue }
}
