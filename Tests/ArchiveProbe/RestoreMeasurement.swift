import Archive
import Foundation

/// Times `Archiver.restore` on large archives with a few misfitting values, the cases where the
/// tolerant decoder does its work: `ArchiveProbe measure-restore <directory> <file|defaults>`.
enum RestoreMeasurement {
    struct Item: Codable {
        var id = 0
        var name = ""
        var tags: [String] = []
        var score = 0.0
    }

    struct Archive: Codable {
        var counter = 0
        var text = ""
        var items: [Item] = []
    }

    /// An archive of about `megabytes` MB whose items are all valid.
    static func archive(megabytes: Int) -> Archive {
        var archive = Archive(counter: 7, text: "kept")
        let item = Item(id: 1, name: String(repeating: "n", count: 40), tags: ["alpha", "beta", "gamma"], score: 0.25)
        let itemSize = (try? JSONEncoder().encode(item).count) ?? 100
        archive.items = (0..<(megabytes * 1_000_000 / (itemSize + 1))).map { index in
            var item = item
            item.id = index
            return item
        }
        return archive
    }

    /// `json` with the ids of `count` chosen items made strings (the id is followed by `,` or `}`:
    /// `JSONEncoder` orders keys differently from one process to the next).
    static func breakItems(_ json: String, count: Int, of total: Int) -> String {
        var text = json
        for index in 0..<count {
            let id = (index * 7_919) % total
            for end in [",", "}"] {
                if let range = text.range(of: "\"id\":\(id)\(end)") {
                    text.replaceSubrange(range, with: "\"id\":\"x\(id)\"\(end)")
                    break
                }
            }
        }
        return text
    }

    static func run(directory: URL, medium: String) throws {
        let store: any ArchiveStore =
            medium == "defaults"
            ? UserDefaultsArchiveStore(suiteName: "flask.measure.\(UUID().uuidString)")
            : try FileArchiveStore(directory: directory)
        let archiver = Archiver(store: store)

        let big = archive(megabytes: 50)
        try measure("50 MB, every value fits", try JSONEncoder().encode(big), store: store, archiver: archiver)
        var json = String(decoding: try JSONEncoder().encode(big), as: UTF8.self)
        json = json.replacingOccurrences(of: "\"counter\":7", with: "\"counter\":\"seven\"")
        try measure("50 MB, one field of the wrong type", Data(json.utf8), store: store, archiver: archiver)

        let medium = archive(megabytes: 20)
        let broken = breakItems(
            String(decoding: try JSONEncoder().encode(medium), as: UTF8.self), count: 20, of: medium.items.count)
        try measure("20 MB, 20 array elements of the wrong type", Data(broken.utf8), store: store, archiver: archiver)
    }

    static func measure(_ label: String, _ data: Data, store: any ArchiveStore, archiver: Archiver) throws {
        try store.set(data, forKey: "measured")
        let start = ContinuousClock.now
        let restored = archiver.restore(Archive.self, key: "measured", defaultValue: Archive())
        let elapsed = ContinuousClock.now - start
        let summary = restored.problems.map { "\($0.kind)".prefix(120) }.joined(separator: "; ")
        print(
            "\(label) (\(data.count / 1_000_000) MB): \(elapsed), counter \(restored.value.counter),"
                + " text \(restored.value.text), \(restored.value.items.count) items; \(summary)")
        try store.removeData(forKey: "measured")
        for suffix in ["previous-shape", "unreadable"] { try store.removeData(forKey: "measured.\(suffix)") }
    }
}
