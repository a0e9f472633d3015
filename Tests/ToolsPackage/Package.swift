// swift-tools-version: 6.2
import PackageDescription

// FlaskTools and FlaskTesting built as a third party would build them: against the core products
// by path, with `FLASK_CORE_ONLY=1` so that the core package declares nothing else. The compiler
// then holds both to the core's public API (no `package` declaration, no `@_spi`). CI runs
// `FLASK_CORE_ONLY=1 swift build` here.
let package = Package(
    name: "ToolsPackage",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(name: "FlaskReactor", path: "../..")],
    targets: [
        .target(
            name: "FlaskTools",
            dependencies: [
                .product(name: "FluxBus", package: "FlaskReactor"),
                .product(name: "Archive", package: "FlaskReactor"),
                .product(name: "Substances", package: "FlaskReactor"),
            ],
            resources: [.embedInCode("Journal/Timeline/timeline.css"), .embedInCode("Journal/Timeline/timeline.js")]),
        .target(
            name: "FlaskTesting",
            dependencies: [
                "FlaskTools",
                .product(name: "FluxBus", package: "FlaskReactor"),
                .product(name: "Archive", package: "FlaskReactor"),
                .product(name: "Substances", package: "FlaskReactor"),
                .product(name: "Reactors", package: "FlaskReactor"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// The same upcoming features as the package's own targets.
for target in package.targets {
    target.swiftSettings = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
}
