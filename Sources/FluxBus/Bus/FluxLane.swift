/// The bus's main lane: the items dispatched and not taken yet, in enqueue order, held in chunks
/// of at most ``chunkCapacity`` items, so that an append never copies the lane.
///
/// One growing array copied every pending item at each doubling, under the queue's lock, while
/// the producers and the bus waited for it: a burst that outran the bus paid for its whole backlog
/// again at each doubling (scenario S1, whose producer outruns the bus under callgrind). A chunk,
/// once full, is only moved; the bus takes the lane a chunk at a time, swapping its empty batch in
/// (``take(into:)``), so buffers go round between the lane and the drain without reallocating.
///
/// Plain data, mutated only under the bus's queue lock, like the rest of `FluxQueue`.
struct FluxLane {
    /// The most items a chunk holds, and so a main-lane batch: the bus takes the lane's lock once
    /// per chunk at most, and lets go of its holds every 128 items anyway (see `FluxOwnerHolds`).
    static let chunkCapacity = 512

    /// Full chunks, oldest first, from `head` on (the chunks before it were taken; their slots are
    /// empty arrays until the array is compacted).
    private var full: [[FluxItem]] = []
    private var head = 0
    /// The chunk being appended to, after the full ones.
    private var tail: [FluxItem] = []
    /// An empty buffer left by a batch, kept for the next chunk.
    private var spare: [FluxItem] = []
    /// How many items wait in the lane.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Appends `item` (moved, not copied: a copy would retain its name and payload once more).
    @inline(__always)
    mutating func append(_ item: consuming FluxItem) {
        if tail.count == FluxLane.chunkCapacity { startChunk() }
        tail.append(item)
        count &+= 1
    }

    /// Moves the full tail behind the full chunks and starts a new one in the spare buffer.
    @inline(never)
    private mutating func startChunk() {
        full.append([])
        swap(&full[full.count - 1], &tail)
        swap(&tail, &spare)
        if tail.capacity < FluxLane.chunkCapacity { tail.reserveCapacity(FluxLane.chunkCapacity) }
    }

    /// Swaps the oldest chunk into `batch`, which must be empty; its buffer becomes the lane's
    /// (the tail's, or the spare). Returns how many items were taken (0 when the lane is empty).
    mutating func take(into batch: inout [FluxItem]) -> Int {
        assert(batch.isEmpty, "a batch is swapped in only once it is empty")
        if head < full.count {
            swap(&batch, &full[head])
            // The batch's old buffer, empty, now in the taken slot, is kept for the next chunk
            // when it is the larger (the slot is dropped either way).
            if spare.capacity < full[head].capacity { swap(&spare, &full[head]) }
            head += 1
            if head == full.count {
                full.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= full.count {
                // A lane that never empties (producers keep ahead of the bus) drops its taken
                // slots now and then, so that `full` does not grow with every chunk ever taken.
                full.removeFirst(head)
                head = 0
            }
        } else {
            // The lane gets the batch's buffer, made as large as the chunk it hands over: a
            // drain starts with an empty batch, and the tail grew again from nothing otherwise.
            if batch.capacity < tail.count { batch.reserveCapacity(tail.count) }
            swap(&batch, &tail)
            // An interrupted batch (a lock) hands buffers round between the lanes: the tail keeps
            // the larger empty one, so that it does not grow again from a small one.
            if tail.capacity < spare.capacity { swap(&tail, &spare) }
        }
        count -= batch.count
        return batch.count
    }

    /// Every item in the lane, in order, and the lane emptied (a purge).
    mutating func takeAll() -> [FluxItem] {
        var all: [FluxItem] = []
        all.reserveCapacity(count)
        for index in head..<full.count { all.append(contentsOf: full[index]) }
        all.append(contentsOf: tail)
        full.removeAll()
        head = 0
        tail.removeAll(keepingCapacity: true)
        count = 0
        return all
    }

    /// The first `limit` items, in the order they will run.
    func prefix(_ limit: Int) -> [FluxItem] {
        var items: [FluxItem] = []
        for index in head..<full.count where items.count < limit {
            items += full[index].prefix(limit - items.count)
        }
        if items.count < limit { items += tail.prefix(limit - items.count) }
        return items
    }
}
