import Foundation

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
        /// lines are skipped.
        ///
        /// - Throws: a `DecodingError` for the first line that is neither an entry nor the line of
        ///   starting states.
        public init(jsonLines text: String) throws {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            var startStates: [String: JournalValue] = [:]
            var entries: [Entry] = []
            for line in text.split(whereSeparator: \.isNewline) {
                let data = Data(line.utf8)
                if line.hasPrefix("{\"flaskJournal\""), let header = try? decoder.decode(Header.self, from: data) {
                    startStates = header.flaskJournal.startStates
                } else {
                    entries.append(try decoder.decode(Entry.self, from: data))
                }
            }
            self.init(startStates: startStates, entries: entries)
        }

        /// The document as JSON lines: the starting states (if any), then one entry per line.
        public func jsonLines() -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            var lines: [String] = []
            if !startStates.isEmpty,
                let header = try? encoder.encode(Header(flaskJournal: .init(version: 2, startStates: startStates)))
            {
                lines.append(String(decoding: header, as: UTF8.self))
            }
            for entry in entries {
                if let line = try? encoder.encode(entry) { lines.append(String(decoding: line, as: UTF8.self)) }
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
