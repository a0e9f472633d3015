import FlaskAPI

final class Tally {
    var count = 0
}

/// A value confined to the bus must not stay reachable by the code that confined it.
func confineAndKeep(bus: Flux) -> BusConfined<Tally> {
    let tally = Tally()
    let confined = BusConfined(tally, on: bus, "tally")
    tally.count += 1
    return confined
}
