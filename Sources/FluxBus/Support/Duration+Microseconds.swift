extension Duration {
    /// The duration in microseconds, for reports and timers.
    var microseconds: Double {
        Double(components.seconds) * 1e6 + Double(components.attoseconds) / 1e12
    }
}
