import Foundation
import Testing

/// Every Swift code block of README.md, docs/*.md, the DocC catalogs and the `///` comments of Sources/ must
/// appear, line for line (indentation aside), in a Swift file under Tests/, which the test build compiles. So a
/// sample that stops compiling, or drifts from the compiled copy, fails here.
@Suite("Documentation samples are compiled")
struct DocumentationSamplesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var documents: [URL] {
        let modules = ["FluxBus", "Archive", "Substances", "Reactors", "FlaskAPI", "FlaskTools", "FlaskTesting"]
        let catalogs = modules.map { "Sources/\($0)/\($0).docc" }
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
        swiftBlocks(in: markdown.split(separator: "\n", omittingEmptySubsequences: false)).map(\.text)
    }

    /// The ```swift blocks of Markdown `lines`, each with the index of its opening fence in `lines`.
    static func swiftBlocks(in lines: [Substring]) -> [(fence: Int, text: String)] {
        var blocks: [(fence: Int, text: String)] = []
        var current: (fence: Int, lines: [Substring])?
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = (index, [])
            } else if let block = current, trimmed == "```" {
                blocks.append((block.fence, block.lines.joined(separator: "\n")))
                current = nil
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return blocks
    }

    /// A ```swift block of a `///` comment: where its opening fence is, and its code.
    struct DocCommentSample: CustomStringConvertible {
        let file: String
        let line: Int
        let text: String

        var description: String { "\(file):\(line)" }
    }

    /// The ```swift blocks of the `///` comments of `source`: each run of `///` lines, stripped of
    /// the `///` and one space after it, is read as Markdown (a block never spans two runs).
    static func swiftBlocks(inDocCommentsOf source: String, file: String) -> [DocCommentSample] {
        var samples: [DocCommentSample] = []
        var run: (start: Int, lines: [Substring])?
        func endRun() {
            guard let current = run else { return }
            for block in swiftBlocks(in: current.lines) {
                samples.append(DocCommentSample(file: file, line: current.start + block.fence + 1, text: block.text))
            }
            run = nil
        }
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.drop(while: { $0 == " " || $0 == "\t" })
            guard code.hasPrefix("///"), !code.hasPrefix("////") else {
                endRun()
                continue
            }
            var text = code.dropFirst(3)
            if text.first == " " { text = text.dropFirst() }
            if run == nil { run = (index, []) }
            run!.lines.append(text)
        }
        endRun()
        return samples
    }

    /// Every ```swift block of a `///` comment in Sources/, in file order.
    static var docCommentSamples: [DocCommentSample] {
        let sources = root.appendingPathComponent("Sources")
        // Paths relative to Sources/, for the reports.
        let paths = (FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String]) ?? []
        var samples: [DocCommentSample] = []
        for path in paths.filter({ $0.hasSuffix(".swift") }).sorted() {
            let url = sources.appendingPathComponent(path)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            samples += swiftBlocks(inDocCommentsOf: text, file: "Sources/" + path)
        }
        return samples
    }

    /// The Swift files a sample may be compiled in: under Tests/, which the test build compiles,
    /// and the sources of the sample packages under Samples/ and of the live session's package
    /// (FlaskLiveSession/), which CI builds and tests (what needs a server framework lives there).
    static var compiledSources: [[String]] {
        var sources: [[String]] = []
        for folder in ["Tests", "Samples", "FlaskLiveSession"] {
            let enumerator = FileManager.default.enumerator(
                at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                // The client packages are not built by the test build (RejectedClient must not compile).
                let skipped = ["ClientPackage", "RejectedClient"]
                if url.pathComponents.contains(where: { skipped.contains($0) || $0.hasPrefix(".build") }) { continue }
                if url.pathExtension == "swift", let text = try? String(contentsOf: url, encoding: .utf8) {
                    sources.append(normalized(text))
                }
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

    @Test("the documentation comments of Sources/ have Swift samples")
    func thereAreDocCommentSamples() {
        let samples = Self.docCommentSamples
        #expect(samples.contains { $0.file == "Sources/FluxBus/Bus/Flux.swift" })
        #expect(samples.count >= 40)
    }

    @Test("every Swift block of a documentation comment is in a compiled file")
    func everyDocCommentBlockIsCompiled() {
        // Tests/ only: the comment itself has the lines, and Sources/ is not where samples compile.
        let sources = Self.compiledSources
        for sample in Self.docCommentSamples {
            let lines = Self.normalized(sample.text)
            let found = sources.contains { Self.contains($0, lines) }
            let first = lines.first ?? ""
            #expect(
                found, "\(sample): the `///` sample starting `\(first)` is not in any compiled file:\n\(sample.text)")
        }
    }
}
