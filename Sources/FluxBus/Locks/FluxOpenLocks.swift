/// The open locks of a bus, by serial.
///
/// Serials grow by one per lock and locks are taken under the bus's mutex, so a lock's slot is its
/// serial minus the serial of the first slot: taking and releasing a lock cost an append and a
/// store, where a dictionary cost a hash, a probe and now and then a resize (a quarter of a locked
/// dispatch). Released slots at the front are skipped and, once they are half the array, dropped.
struct FluxOpenLocks {
    private var slots: [FluxLock?] = []
    /// The first slot that may hold a lock.
    private var head = 0
    /// The serial of `slots[0]`.
    private var firstSerial: UInt64 = 0
    /// The number of open locks.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Adds a lock whose serial follows the last one added.
    mutating func insert(_ lock: FluxLock) {
        if count == 0 {
            slots.removeAll(keepingCapacity: true)
            head = 0
            firstSerial = lock.serial
        }
        precondition(lock.serial == firstSerial + UInt64(slots.count), "lock serials must follow each other")
        slots.append(lock)
        count += 1
    }

    /// Removes the lock with `serial`, if it is open.
    mutating func remove(serial: UInt64) {
        guard serial >= firstSerial, serial - firstSerial < UInt64(slots.count) else { return }
        let index = Int(serial - firstSerial)
        guard slots[index] != nil else { return }
        slots[index] = nil
        count -= 1
        // With no lock open, the slots are cleared by the next `insert`.
        guard count > 0 else { return }
        while slots[head] == nil { head += 1 }
        if head > 16 && head * 2 > slots.count {
            slots.removeFirst(head)
            firstSerial += UInt64(head)
            head = 0
        }
    }

    /// The open locks, oldest first.
    var all: [FluxLock] { slots[head...].compactMap { $0 } }

    /// The serials of the open locks, oldest first.
    var serials: [UInt64] { slots[head...].compactMap { $0?.serial } }
}
