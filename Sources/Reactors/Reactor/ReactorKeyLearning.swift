import Substances

/// Where a reactor is in learning the keys its bus handler asks for (see `Reactor.learnsKeys`).
enum ReactorKeyLearning {
    /// Not learning: keys declared, learning turned off, reactions also delivered elsewhere than
    /// the bus, several substances, no bus handler.
    case off
    /// Watching the handler: it asked for the same keys on its last calls.
    case learning
    /// Learned: the substance calls the handler only for commits that change one of them, and
    /// each call is still watched.
    case learned
    /// The handler asked for different keys on different calls, or for something other than keys:
    /// it is called for every commit.
    case gaveUp

    /// How many calls in a row must ask for the same keys before they are learned.
    static let callsToLearn = 8

    /// Once learned, one call in this many is watched: a handler whose keys change later is found
    /// out within as many calls, at a counter's cost for the others.
    static let learnedCallsPerWatch = 16
}
