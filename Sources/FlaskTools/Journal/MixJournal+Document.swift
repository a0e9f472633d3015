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
        /// string's U+2028, U+2029 or U+0085, which other readers take for line ends, is no end.
        ///
        /// - Throws: ``LineError`` for the first line that is neither an entry nor the line of
        ///   starting states, or is longer than ``MixJournal/lineLimit``.
        public init(jsonLines text: String) throws {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            var startStates: [String: JournalValue] = [:]
            var entries: [Entry] = []
            var number = 0
            for var line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                number += 1
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
                guard line.count <= MixJournal.lineLimit else {
                    throw LineError(
                        line: number,
                        reason: "\(line.count) bytes, more than a journal line holds (\(MixJournal.lineLimit))")
                }
                let data = Data(line)
                do {
                    if data.starts(with: Self.headerStart),
                        let header = try? decoder.decode(Header.self, from: data)
                    {
                        // Cut as when recorded, for a file made elsewhere (at twice the limit: the
                        // journal's own, cut at about the limit, read back unchanged).
                        startStates = header.flaskJournal.startStates.mapValues {
                            $0.bounded(to: 2 * MixJournal.startStateLimit).value
                        }
                    } else {
                        entries.append(try decoder.decode(Entry.self, from: data))
                    }
                } catch {
                    throw LineError(line: number, reason: "not an entry (\(error))")
                }
            }
            self.init(startStates: startStates, entries: entries)
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

        /// The document as JSON lines: the starting states (if any), then one entry per line. Every
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
                if let line = try? encoder.encode(entry) {
                    lines.append(JSONEscaping.escapingLineSeparators(in: String(decoding: line, as: UTF8.self)))
                }
            }
            return lines.joined(separator: "\n")
        }

        /// Every substance's state after the mix `serial` (after all of them when no entry has that
        /// serial), rebuilt from ``startStates`` and the values each mix recorded: the substances
        /// that have a starting state.
        public func states(after serial: UInt64) -> [String: JournalValue] {
            var states = startStates
            for entry in entries {
                for change in entry.changes where !change.aborted {
                    guard var state = states[change.substance], let values = change.values else { continue }
                    for value in values { state.set(value.new, at: value.key) }
                    states[change.substance] = state
                }
                if entry.serial == serial { break }
            }
            return states
        }
    }
}
