/// Arrays of `Equatable` elements, compared by the reduction element by element where their bytes
/// differ, and not at all where they are identical.
///
/// The reduction compares a property through a closure made once per state type, so `==` on an
/// array runs unspecialized: it copies every element out of both arrays through their type's
/// value witnesses (a retain and a release per reference inside). For a list of 100,000 items
/// with one changed, that was as long as copying the list. Comparing the bytes first finds the
/// one element that differs at the speed of memory; `==` then runs on that element only (and on
/// any whose bytes differ in padding inside the element alone). The padding after an element is
/// not compared.
protocol ArrayOfEquatable {
    /// Compares the arrays at two addresses.
    static var elementwiseEquality: (UnsafeRawPointer, UnsafeRawPointer) -> Bool { get }
}

extension Array: ArrayOfEquatable where Element: Equatable {
    static var elementwiseEquality: (UnsafeRawPointer, UnsafeRawPointer) -> Bool {
        {
            equalSkippingIdenticalBytes(
                $0.assumingMemoryBound(to: [Element].self), $1.assumingMemoryBound(to: [Element].self))
        }
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
            let size = MemoryLayout<Element>.size
            let count = left.count
            let a = UnsafeRawPointer(leftBase)
            let b = UnsafeRawPointer(rightBase)
            let end = count &* stride
            var offset = 0
            // Runs of identical bytes are skipped a block at a time. Where bytes differ, the element
            // there is compared by its own bytes (the padding after it holds whatever the memory
            // held before: element copies do not copy it), then with `==` if those differ; the
            // search goes on from the next element.
            while let difference = firstDifference(a, b, from: offset, to: end) {
                let index = difference / stride
                let start = index &* stride
                if !sameBits(a + start, b + start, size), left[index] != right[index] { return false }
                offset = start &+ stride
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
