import Foundation
import Testing

/// Every Swift code block of README.md, docs/*.md and the DocC catalog must appear, line for line (indentation
/// aside), in a Swift file under Tests/, which the test build compiles. So a sample that stops
/// compiling, or drifts from the compiled copy, fails here.
@Suite("Documentation samples are compiled")
struct DocumentationSamplesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var documents: [URL] {
        let catalogs = ["FluxBus", "Archive", "Substances", "Reactors", "FlaskAPI"].map { "Sources/\($0)/\($0).docc" }
        let folders = (["docs"] + catalogs).map { root.appendingPathComponent($0) }
        var documents = [root.appendingPathComponent("README.md")]
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            documents += names.filter { $0.hasSuffix(".md") }.sorted().map { folder.appendingPathComponent($0) }
        }
        return documents
    }

    static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    static var compiledSources: [[String]] {
        let tests = root.appendingPathComponent("Tests")
        let enumerator = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)
        var sources: [[String]] = []
        while let url = enumerator?.nextObject() as? URL {
            // The client packages are not built by the test build (RejectedClient must not compile).
            let skipped = [".build", "ClientPackage", "RejectedClient"]
            if url.pathComponents.contains(where: skipped.contains) { continue }
            if url.pathExtension == "swift", let text = try? String(contentsOf: url, encoding: .utf8) {
                sources.append(normalized(text))
            }
        }
        return sources
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    @Test("the README and docs have Swift samples")
    func thereAreSamples() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(Self.swiftBlocks(in: readme).count >= 2)
    }

    @Test("every Swift block of the README and docs is in a compiled file", arguments: documents)
    func everyBlockIsCompiled(document: URL) throws {
        let markdown = try String(contentsOf: document, encoding: .utf8)
        let sources = Self.compiledSources
        for block in Self.swiftBlocks(in: markdown) {
            let lines = Self.normalized(block)
            let found = sources.contains { Self.contains($0, lines) }
            #expect(found, "\(document.lastPathComponent): this sample is not in any compiled file:\n\(block)")
        }
    }
}
