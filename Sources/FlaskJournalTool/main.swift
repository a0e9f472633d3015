// flask-journal: tools for the JSON lines a `MixJournal` exports (see docs/tools.md).
//
//     swift run flask-journal timeline IN.jsonl -o OUT.html [--title TITLE]
import Foundation

let tool = JournalTool(
    standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
    standardError: { FileHandle.standardError.write(Data($0.utf8)) })
exit(tool.run(Array(CommandLine.arguments.dropFirst())))
