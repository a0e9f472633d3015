import FlaskTools
import Foundation

/// The `flask-journal` command: its arguments, and what it does with them. Kept apart from
/// `main.swift` so that the tests run it without a process.
struct JournalTool {
    /// Where the page goes when there is no `-o` (or `-o -`), and the usage text for `--help`.
    let standardOutput: (String) -> Void
    /// Where problems and the usage text after a bad argument go.
    let standardError: (String) -> Void

    /// What the command line asks for.
    enum Command: Equatable {
        /// Write the timeline page of the journal at `input` (`-`: standard input) to `output`
        /// (nil: standard output).
        case timeline(input: String, output: String?, title: String?)
        /// Print the usage text.
        case help
    }

    /// A command line that means nothing: what is wrong with it.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// The exit statuses (sysexits.h).
    enum Status {
        static let success: Int32 = 0
        static let usage: Int32 = 64
        static let badJournal: Int32 = 65
        static let unreadable: Int32 = 66
        static let unwritable: Int32 = 73
    }

    static let usage = """
        usage: flask-journal timeline IN.jsonl [-o OUT.html] [--title TITLE]

        Writes the timeline page of a MixJournal exported as JSON lines (journal.jsonLines()):
        one self-contained HTML file, each mix a row, filters by substance and key, and the state
        of every substance after the mix you select.

          IN.jsonl        the journal; - reads standard input
          -o, --output    the page to write; - or none writes to standard output
          --title         the page's title (default: "Flask mix journal")
          -h, --help      this text

        Exit status: 0 written (an empty journal, or one of blank lines, makes an empty page),
        64 bad arguments, 65 not a journal (not UTF-8, or a line that is not an entry, named by
        its number), 66 journal unreadable, 73 page not written.

        """

    /// Reads `arguments` (without the program's name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let subcommand = arguments.first else { throw UsageError(description: "no command given") }
        if subcommand == "-h" || subcommand == "--help" || subcommand == "help" { return .help }
        guard subcommand == "timeline" else { throw UsageError(description: "unknown command '\(subcommand)'") }
        var input: String?
        var output: String?
        var title: String?
        var rest = arguments.dropFirst()
        func value(of option: String) throws(UsageError) -> String {
            guard let value = rest.popFirst() else { throw UsageError(description: "\(option) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": return .help
            case "-o", "--output":
                guard output == nil else { throw UsageError(description: "\(argument) given twice") }
                output = try value(of: argument)
            case "--title":
                guard title == nil else { throw UsageError(description: "--title given twice") }
                title = try value(of: argument)
            case "-":
                guard input == nil else { throw UsageError(description: "more than one journal given") }
                input = argument
            default:
                if argument.hasPrefix("--output=") {
                    output = String(argument.dropFirst("--output=".count))
                } else if argument.hasPrefix("--title=") {
                    title = String(argument.dropFirst("--title=".count))
                } else if argument.hasPrefix("-") {
                    throw UsageError(description: "unknown option '\(argument)'")
                } else {
                    guard input == nil else { throw UsageError(description: "more than one journal given") }
                    input = argument
                }
            }
        }
        guard let input else { throw UsageError(description: "no journal given (IN.jsonl, or - for standard input)") }
        return .timeline(input: input, output: output == "-" ? nil : output, title: title)
    }

    /// The timeline page of the journal `jsonLines`.
    static func timelinePage(fromJSONLines jsonLines: String, title: String?) throws -> String {
        let document = try MixJournal.Document(jsonLines: jsonLines)
        return title.map { document.timelineHTML(title: $0) } ?? document.timelineHTML()
    }

    /// Runs the command line `arguments`; returns the exit status.
    func run(_ arguments: [String]) -> Int32 {
        let command: Command
        do {
            command = try Self.parse(arguments)
        } catch {
            standardError("flask-journal: \(error)\n\n\(Self.usage)")
            return Status.usage
        }
        switch command {
        case .help:
            standardOutput(Self.usage)
            return Status.success
        case .timeline(let input, let output, let title):
            let document: MixJournal.Document
            do {
                // Read a line at a time: memory stays within a few times the longest line.
                let file =
                    input == "-"
                    ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
                document = try MixJournal.Document(reading: file)
            } catch let error as MixJournal.Document.LineError {
                standardError("flask-journal: \(input) is not a MixJournal's JSON lines: \(error)\n")
                return Status.badJournal
            } catch {
                standardError("flask-journal: cannot read the journal \(input): \(error.localizedDescription)\n")
                return Status.unreadable
            }
            let page = title.map { document.timelineHTML(title: $0) } ?? document.timelineHTML()
            guard let output else {
                standardOutput(page)
                return Status.success
            }
            do {
                try page.write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
            } catch {
                standardError("flask-journal: cannot write \(output): \(error.localizedDescription)\n")
                return Status.unwritable
            }
            return Status.success
        }
    }
}
