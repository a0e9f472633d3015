// swift-tools-version: 6.2
import PackageDescription

// Minimum Apple versions follow from `Synchronization.Atomic` (macOS 15, iOS 18, tvOS 18, watchOS 11,
// visionOS 2), which the bus uses for its lock-free fast path (its lock is its own: FlaskLocking).
let package = Package(
    name: "FlaskReactor",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "FluxBus", targets: ["FluxBus"]),
        .library(name: "Archive", targets: ["Archive"]),
        .library(name: "Substances", targets: ["Substances"]),
        .library(name: "Reactors", targets: ["Reactors"]),
        .library(name: "FlaskAPI", targets: ["FlaskAPI"]),
        // Debugging and testing tools, built on the core and kept out of it: add them where you
        // debug (`import FlaskTools`) and to your test targets (`import FlaskTesting`).
        .library(name: "FlaskTools", targets: ["FlaskTools"]),
        .library(name: "FlaskTesting", targets: ["FlaskTesting"]),
        .executable(name: "FlaskBenchmarks", targets: ["FlaskBenchmarks"]),
        // `swift run flask-journal timeline IN.jsonl -o OUT.html`: a journal's timeline page.
        .executable(name: "flask-journal", targets: ["FlaskJournalTool"]),
    ],
    targets: [
        // The one lock of the package, below both leaves (not a product).
        .target(name: "FlaskLocking"),
        .target(name: "FluxBus", dependencies: ["FlaskLocking"]),
        .target(name: "Archive", dependencies: ["FlaskLocking"]),
        .target(name: "Substances", dependencies: ["FlaskLocking", "FluxBus", "Archive"]),
        .target(name: "Reactors", dependencies: ["FlaskLocking", "FluxBus", "Substances"]),
        .target(name: "FlaskAPI", dependencies: ["FluxBus", "Archive", "Substances", "Reactors"]),
        .target(
            name: "FlaskTools", dependencies: ["FlaskLocking", "FluxBus", "Archive", "Substances"],
            // The timeline page's style and script, embedded in the module's code at build time.
            resources: [.embedInCode("Journal/Timeline/timeline.css"), .embedInCode("Journal/Timeline/timeline.js")]),
        .target(
            name: "FlaskTesting",
            dependencies: ["FlaskLocking", "FluxBus", "Archive", "Substances", "Reactors", "FlaskTools"]),
        .executableTarget(
            name: "FlaskBenchmarks", dependencies: ["FlaskAPI", "FlaskTools"], path: "Benchmarks/FlaskBenchmarks"),
        .executableTarget(name: "FlaskJournalTool", dependencies: ["FlaskTools"]),
        .target(name: "FlaskTestSupport", dependencies: ["FluxBus"], path: "Tests/FlaskTestSupport"),
        .testTarget(name: "FluxBusTests", dependencies: ["FlaskLocking", "FluxBus", "FlaskTestSupport"]),
        .executableTarget(name: "ArchiveProbe", dependencies: ["Archive"], path: "Tests/ArchiveProbe"),
        .testTarget(
            name: "ArchiveTests",
            dependencies: ["Archive", "FlaskLocking", "FlaskTesting", "FlaskTestSupport", "ArchiveProbe"]),
        .executableTarget(name: "ArchiveAppProbe", dependencies: ["FlaskAPI"], path: "Tests/ArchiveAppProbe"),
        .testTarget(
            name: "SubstancesTests",
            dependencies: ["FlaskLocking", "Substances", "FlaskTesting", "FlaskTestSupport", "ArchiveAppProbe"]),
        .testTarget(
            name: "ReactorsTests",
            dependencies: ["FlaskLocking", "Reactors", "FlaskTools", "FlaskTesting", "FlaskTestSupport"]),
        .testTarget(
            name: "FlaskAPITests", dependencies: ["FlaskAPI", "FlaskTools", "FlaskTesting", "FlaskTestSupport"]),
        .testTarget(
            name: "FlaskToolsTests",
            dependencies: ["FlaskLocking", "FlaskTools", "FlaskTesting", "FlaskTestSupport", "FlaskJournalTool"]),
        .testTarget(
            name: "FlaskTestingTests", dependencies: ["FlaskLocking", "FlaskTesting", "Reactors", "FlaskTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// `FLASK_CORE_ONLY=1`: the core products alone, for the package that builds the tools against
// them from outside (Tests/ToolsPackage), so that the compiler holds them to the core's public API.
if Context.environment["FLASK_CORE_ONLY"] != nil {
    let core: Set<String> = ["FlaskLocking", "FluxBus", "Archive", "Substances", "Reactors", "FlaskAPI"]
    package.targets.removeAll { !core.contains($0.name) }
    package.products.removeAll { !core.contains($0.name) }
}

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
