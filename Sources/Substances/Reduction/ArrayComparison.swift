/// Arrays of `Equatable` elements, compared by the reduction element by element where their bytes
/// differ, and not at all where they are identical.
///
/// The reduction compares a property through a closure made once per state type, so `==` on an
/// array runs unspecialized: it copies every element out of both arrays through their type's
/// value witnesses (a retain and a release per reference inside). For a list of 100,000 items
/// with one changed, that was as long as copying the list. Comparing the bytes first finds the
/// one element that differs at the speed of memory; `==` then runs on that element only (and on
/// any whose bytes differ in padding alone).
protocol ArrayOfEquatable {
    /// Compares the arrays at two addresses.
    static var elementwiseEquality: (UnsafeRawPointer, UnsafeRawPointer) -> Bool { get }
}

extension Array: ArrayOfEquatable where Element: Equatable {
    static var elementwiseEquality: (UnsafeRawPointer, UnsafeRawPointer) -> Bool {
        { equalSkippingIdenticalBytes($0.assumingMemoryBound(to: [Element].self), $1.assumingMemoryBound(to: [Element].self)) }
    }
}

/// Whether two arrays hold equal elements. Elements with identical bytes are taken as equal without
/// asking `==` (the same references, the same bits: the same value; a NaN kept as it was is no
/// change either).
func equalSkippingIdenticalBytes<Element: Equatable>(
    _ lhs: UnsafePointer<[Element]>, _ rhs: UnsafePointer<[Element]>
) -> Bool {
    guard lhs.pointee.count == rhs.pointee.count else { return false }
    return lhs.pointee.withUnsafeBufferPointer { left in
        rhs.pointee.withUnsafeBufferPointer { right in
            guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
            if leftBase == rightBase { return true }
            let stride = MemoryLayout<Element>.stride
            let count = left.count
            let end = count &* stride
            let a = UnsafeRawPointer(leftBase)
            let b = UnsafeRawPointer(rightBase)
            var offset = 0
            while let difference = firstDifference(a, b, from: offset, to: end) {
                // The eight bytes found may straddle two elements: ask `==` of each they touch.
                let first = difference / stride
                let last = Swift.min(count &- 1, (difference &+ 7) / stride)
                for index in first...last where left[index] != right[index] { return false }
                offset = (last &+ 1) &* stride
            }
            return true
        }
    }
}

/// Whether two values are the same, as the reduction decides it: identical bytes are; an array of
/// `Equatable` elements is compared where its elements' bytes differ; anything else asks `==`.
/// (Called unspecialized, as the reduction's comparisons are: a key path's change asks it.)
func sameValue<Value: Equatable>(_ old: Value, _ new: Value) -> Bool {
    var old = old
    var new = new
    return withUnsafePointer(to: &old) { a in
        withUnsafePointer(to: &new) { b in
            if sameBits(a, b, MemoryLayout<Value>.size) { return true }
            if let array = Value.self as? any ArrayOfEquatable.Type { return array.elementwiseEquality(a, b) }
            return a.pointee == b.pointee
        }
    }
}
