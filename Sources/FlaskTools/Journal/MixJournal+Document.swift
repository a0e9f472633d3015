import Archive
import Foundation
import Substances

extension MixJournal {
    /// A journal as it is exported and read back: its entries, and each substance's state before
    /// the first of them, from which the state after any mix is rebuilt (``states(after:)``).
    ///
    /// As JSON lines (``jsonLines()``): a first line `{"flaskJournal":{"version":2,"startStates":
    /// {...}}}` when there are starting states, then one entry per line, oldest first. Journals of
    /// earlier versions (entries only) read back with no starting states.
    public struct Document: Sendable {
        /// Each substance's state before its first mix in ``entries``, by name: JSON, without its
        /// `_`-prefixed properties, its secret keys redacted. Empty when values were not recorded.
        ///
        /// A substance made later under the name of one the journal saw (a screen's substance made
        /// again when the screen opens again) starts its states again where the journal first
        /// sees it commit: that change holds its state before the mix (``Change/start``). Two
        /// substances alive at the same time under one name take the name in turns: a name's
        /// rebuilt state is that of the substance that last committed under it, each commit of the
        /// other one starting its states again from its own (a ``Change/start`` each time: names of
        /// their own keep them apart, and cheaper).
        public let startStates: [String: JournalValue]
        /// The mixes, oldest first.
        public let entries: [Entry]

        /// A document of `entries` starting from `startStates`.
        public init(startStates: [String: JournalValue] = [:], entries: [Entry]) {
            self.startStates = startStates
            self.entries = entries
        }

        /// The first line of the JSON lines, when there are starting states.
        private struct Header: Codable {
            struct Contents: Codable {
                let version: Int
                let startStates: [String: JournalValue]
            }

            let flaskJournal: Contents
        }

        /// Reads JSON lines exported by ``jsonLines()`` (or by ``MixJournal/jsonLines()``); empty
        /// lines are skipped. Lines end at `\n` (a `\r` before it is dropped) and nowhere else: a
        /// string's U+2028, U+2029 or U+0085, which other readers take for line ends, is no end. A
        /// UTF-8 byte order mark at the start is skipped.
        ///
        /// - Throws: ``LineError`` for the first line that is neither an entry nor the line of
        ///   starting states (which comes first, or not at all), is longer than
        ///   ``MixJournal/lineLimit``, or nests deeper than a JSON reader accepts.
        public init(jsonLines text: String) throws {
            try self.init(jsonLines: text, startLimit: 2 * MixJournal.startStateLimit)
        }

        /// As ``init(jsonLines:)``, starting states cut at about `startLimit` bytes of JSON: what
        /// the tests read a cut with, without lines of a hundred megabytes.
        init(jsonLines text: String, startLimit: Int) throws {
            var reader = LineReader(startLimit: startLimit)
            try reader.read(line: Substring(text).utf8[...])
            self.init(startStates: reader.startStates, entries: reader.entries)
        }

        /// Reads the JSON lines of a file (or of standard input), a line at a time: memory stays
        /// within a few times the longest line, whatever the number of lines (a journal's page is
        /// made from files far larger than memory would hold as one text). As
        /// ``init(jsonLines:)``; a line that is not UTF-8 text is not an entry.
        ///
        /// - Throws: ``LineError`` as ``init(jsonLines:)``; the error of a read that fails.
        public init(reading file: FileHandle) throws {
            var reader = LineReader()
            var pending: [UInt8] = []
            while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
                pending.append(contentsOf: chunk)
                guard let lastEnd = pending.lastIndex(of: UInt8(ascii: "\n")) else {
                    guard pending.count <= MixJournal.lineLimit else { throw reader.tooLong(pending.count) }
                    continue
                }
                // The whole lines, without the newline that ends the last of them: read with it,
                // the text after it made one more (empty) line, and every line after a chunk was
                // numbered one too far (a client found a bad last line called line 10 of 9).
                try reader.read(lines: pending[..<lastEnd])
                pending.removeSubrange(...lastEnd)
            }
            if !pending.isEmpty { try reader.read(lines: pending[...]) }
            self.init(startStates: reader.startStates, entries: reader.entries)
        }

        /// Reads JSON lines, a line at a time: what both initializers share.
        private struct LineReader {
            var startStates: [String: JournalValue] = [:]
            var entries: [Entry] = []
            private var number = 0
            /// Whether a line that is not blank was read: the line of starting states comes first.
            private var readALine = false
            /// About how many bytes of JSON a starting state keeps, in the line of starting states
            /// and in a change's ``Change/start`` alike.
            private let startLimit: Int
            private let decoder = JSONDecoder()

            init(startLimit: Int = 2 * MixJournal.startStateLimit) {
                self.startLimit = startLimit
                decoder.dateDecodingStrategy = .iso8601
                decoder.userInfo[Document.startLimitKey] = startLimit
            }

            /// Reads the lines of `bytes` (a whole text, or a run of whole lines).
            mutating func read<Bytes: Collection>(lines bytes: Bytes) throws where Bytes.Element == UInt8 {
                // One line at a time, never a list of them: a file of a hundred million blank lines
                // holds no more in memory than one of them.
                var start = bytes.startIndex
                while true {
                    let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
                    try read(one: Array(bytes[start..<end]))
                    guard end != bytes.endIndex else { return }
                    start = bytes.index(after: end)
                }
            }

            mutating func read(line text: Substring.UTF8View.SubSequence) throws {
                try read(lines: text)
            }

            /// The error of a line longer than the limit.
            func tooLong(_ count: Int) -> LineError {
                LineError(
                    line: number + 1, reason: "\(count) bytes, more than a journal line holds (\(MixJournal.lineLimit))"
                )
            }

            private mutating func read(one bytes: [UInt8]) throws {
                number += 1
                var line = bytes[...]
                if number == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
                guard line.count <= MixJournal.lineLimit else { throw tooLong(line.count) }
                guard String(validating: line, as: UTF8.self) != nil else {
                    throw LineError(line: number, reason: "not UTF-8 text")
                }
                if let depth = Document.nestingBeyondLimit(line) {
                    throw LineError(
                        line: number,
                        reason:
                            "nested \(depth) levels deep or more, deeper than a JSON reader accepts (\(Document.nestingLimit))"
                    )
                }
                let data = Data(line)
                defer { readALine = true }
                do {
                    if data.starts(with: Document.headerStart),
                        let header = try? decoder.decode(Header.self, from: data)
                    {
                        // A second one would replace the first's starting states, and rebuild the
                        // entries before it from states they never had.
                        guard !readALine else {
                            throw LineError(line: number, reason: Document.headerNotFirst)
                        }
                        // Cut as when recorded, for a file made elsewhere (at twice the limit: the
                        // journal's own, cut at about the limit, read back unchanged).
                        startStates = header.flaskJournal.startStates.mapValues {
                            $0.bounded(to: startLimit).value
                        }
                    } else {
                        entries.append(try decoder.decode(Entry.self, from: data))
                    }
                } catch let error as LineError {
                    throw error
                } catch {
                    throw LineError(line: number, reason: "not an entry (\(error))")
                }
            }
        }

        /// Why a line of starting states after the first line is refused.
        static let headerNotFirst =
            "a line of starting states after the first line (two journals' lines one after the other?): "
            + "a journal's comes first"

        /// Where a reader tells ``Change/init(from:)`` how far to cut a starting state.
        static let startLimitKey = CodingUserInfoKey(rawValue: "flaskJournal.startLimit")!

        /// How deep `JSONDecoder` reads nested arrays and objects.
        static let nestingLimit = 512

        /// The depth a line's arrays and objects reach, when it is past `limit`; nil otherwise.
        /// Strings are skipped, escapes included.
        static func nestingBeyondLimit<Bytes: Collection<UInt8>>(_ line: Bytes, limit: Int = nestingLimit) -> Int? {
            var depth = 0
            var inString = false
            var escaped = false
            for byte in line {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > limit { return depth }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                default: break
                }
            }
            return nil
        }

        /// How the line of starting states begins.
        private static let headerStart = Data("{\"flaskJournal\"".utf8)

        /// A line of JSON lines that is not part of a journal: its number (from 1) and why.
        public struct LineError: Error, CustomStringConvertible {
            /// The line's number, from 1.
            public let line: Int
            /// What is wrong with it.
            public let reason: String

            public var description: String { "line \(line): \(reason)" }
        }

        /// The document as JSON lines: the starting states (if any), then one entry per line, each
        /// ending with `\n` (an empty document is empty text). Every
        /// character a JSON reader may split lines on is escaped (`\u2028`, `\u2029`, `\u0085`, and
        /// the control characters), so that each entry is one line for any reader.
        public func jsonLines() -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            var lines: [String] = []
            if !startStates.isEmpty,
                let header = try? encoder.encode(Header(flaskJournal: .init(version: 2, startStates: startStates)))
            {
                lines.append(JSONEscaping.escapingLineSeparators(in: String(decoding: header, as: UTF8.self)))
            }
            for entry in entries {
                // Every entry encodes: what it records is bounded in depth when recorded (see
                // `JournalValue.nestingLimit`), and non-finite numbers are tagged.
                guard let line = try? encoder.encode(entry) else {
                    assertionFailure("the journal's entry #\(entry.serial) could not be written as a JSON line")
                    continue
                }
                lines.append(JSONEscaping.escapingLineSeparators(in: String(decoding: line, as: UTF8.self)))
            }
            // Each line ends with its `\n`, the last one too, as JSON Lines has it: text appended
            // to an export starts a line of its own. (Another export appended is refused when
            // read: its line of starting states is not the first.)
            return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
        }

        /// Every substance's state after the mix `serial`, as ``states(after:)`` rebuilds it, when
        /// the document keeps that mix; serial 0: before the first mix kept (``startStates``); nil
        /// for a mix the document does not keep. What a jump in time, or a view of the states
        /// after a mix, asks for.
        public func states(afterKept serial: UInt64) -> [String: JournalValue]? {
            if serial == 0 { return startStates }
            guard entries.contains(where: { $0.serial == serial }) else { return nil }
            return states(after: serial)
        }

        /// Every substance's state after the mix `serial` (after all of them when no entry has that
        /// serial), rebuilt from ``startStates`` and the values each mix recorded, a substance made
        /// again starting again from its ``Change/start``: the substances that have a starting
        /// state.
        public func states(after serial: UInt64) -> [String: JournalValue] {
            var states = startStates
            for entry in entries {
                for change in entry.changes where !change.aborted {
                    // A substance made again under a known name: its states start again here.
                    if let start = change.start { states[change.substance] = start }
                    guard var state = states[change.substance], let values = change.values else { continue }
                    for value in values { state.apply(value) }
                    states[change.substance] = state
                }
                if entry.serial == serial { break }
            }
            return states
        }
    }
}
