/// The plan entries a commit changed, in the order found: the first four inline, the rest in an
/// array. Most commits change a few keys, and an array per commit was an allocation, a growth and
/// a free on every dispatch.
struct ChangedEntries: RandomAccessCollection {
    private var inline: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
    private var inlineCount = 0
    private var overflow: [Int32] = []

    var startIndex: Int { 0 }
    var endIndex: Int { inlineCount + overflow.count }

    subscript(position: Int) -> Int32 {
        switch position {
        case 0: inline.0
        case 1: inline.1
        case 2: inline.2
        case 3: inline.3
        default: overflow[position - 4]
        }
    }

    mutating func append(_ entry: Int32) {
        switch inlineCount {
        case 0: inline.0 = entry
        case 1: inline.1 = entry
        case 2: inline.2 = entry
        case 3: inline.3 = entry
        default:
            overflow.append(entry)
            return
        }
        inlineCount += 1
    }
}
