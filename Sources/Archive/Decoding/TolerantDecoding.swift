import Foundation

/// Restores an archive written by another shape of a type, value by value: every value that still
/// fits is restored, each one that does not takes its default alone (an element of an array or a
/// dictionary without a default is left out), and nothing else goes with it.
///
/// The bytes are parsed once into a ``JSONTree``, and the type decoded from the tree by a
/// ``TreeDecoder`` that holds, beside each archived value, the same place in the default value's
/// tree. A property whose archived value does not decode (of another type, a number that does not
/// fit, missing) is decoded from the default's instead, and its coding path noted. So the time is
/// linear in the archive's size, whatever the number of misfits; the decoder the first attempt used,
/// `JSONDecoder`, could only say where the first misfit was.
enum TolerantDecoding {
    enum Outcome<Value> {
        /// The value, and the coding paths that took their defaults or were left out, with why.
        case restored(Value, notes: [Note])
        /// Nothing could be restored: not JSON, or not the shape of the type at the top.
        case unreadable(reason: String)
    }

    /// A value restored from the default instead of the archive, or left out.
    struct Note: Equatable {
        /// The dotted coding path, array elements by index.
        let path: String
        /// Whether the value was left out (an element of an array or a dictionary with no default).
        let leftOut: Bool
        /// Why, in types, kinds and paths: no value.
        let reason: String
    }

    /// Decodes `data` as `T`, taking the defaults of the values that do not fit from
    /// `defaultValue`.
    ///
    /// - Complexity: O(*n* + *d* × *m*) for an archive of size *n*, a default value of size *d* and
    ///   *m* misfits; the default is usually small.
    static func decode<T: Codable>(_ type: T.Type, from data: Data, defaultValue: T) -> Outcome<T> {
        let tree: JSONTree
        do {
            tree = try JSONTree.parse(data)
        } catch {
            return .unreadable(reason: error.description)
        }
        let defaults = (try? ArchiveEncoder().encode(defaultValue)).flatMap { try? JSONTree.parse($0) }
        let notes = TreeDecoder.Notes()
        let root = TreeDecoder(notes: notes, parent: nil, key: nil, value: tree, defaults: defaults, recursion: 0)
        do {
            return .restored(try root.decode(T.self), notes: notes.all)
        } catch {
            return .unreadable(reason: ArchiveErrorReason.describe(error))
        }
    }
}
