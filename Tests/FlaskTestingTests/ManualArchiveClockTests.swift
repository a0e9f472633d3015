import FlaskTestSupport
import FlaskTesting
import Testing

@Suite("ManualArchiveClock")
struct ManualArchiveClockTests {
    @Test("time moves only when told to, and due wake-ups run in deadline order, then in the order armed")
    func order() {
        let clock = ManualArchiveClock()
        let woken = Recorder<String>()
        clock.wake(at: .seconds(3)) { woken.append("3") }
        clock.wake(at: .seconds(1)) { woken.append("1a") }
        clock.wake(at: .seconds(1)) { woken.append("1b") }
        #expect(clock.now == .zero && clock.pendingWakeUps == 3)
        clock.advance(by: .seconds(2))
        #expect(woken.all == ["1a", "1b"] && clock.now == .seconds(2) && clock.pendingWakeUps == 1)
        clock.advance(to: .seconds(1))
        #expect(clock.now == .seconds(2), "time never goes back")
        clock.advance(by: .seconds(1))
        #expect(woken.all == ["1a", "1b", "3"] && clock.pendingWakeUps == 0)
    }

    @Test("a wake-up armed by a woken action runs in the same advance when it comes due")
    func chained() {
        let clock = ManualArchiveClock()
        let woken = Recorder<Duration>()
        clock.wake(at: .seconds(1)) {
            woken.append(clock.now)
            clock.wake(at: .seconds(2)) { woken.append(clock.now) }
            clock.wake(at: .seconds(9)) { woken.append(clock.now) }
        }
        clock.advance(by: .seconds(5))
        #expect(woken.all == [.seconds(1), .seconds(2)] && clock.now == .seconds(5) && clock.pendingWakeUps == 1)
        clock.wake(at: .seconds(4)) { woken.append(clock.now) }
        clock.runDueWakeUps()
        #expect(woken.all == [.seconds(1), .seconds(2), .seconds(5)])
    }
}
