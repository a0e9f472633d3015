import Reactors
import Substances

extension ChangeProbe {
    /// Records the changes `reactor` sees: those its substances commit.
    public convenience init<Owner>(_ reactor: Reactor<Owner>) {
        self.init(reactor.substances)
    }
}
