// swift-tools-version: 6.0
// A downstream client of FlaskAPI: it compiles the seed README samples (the same files the
// FlaskAPITests target runs) through the public API only. CI builds it with warnings as errors.
import PackageDescription

let package = Package(
    name: "ClientPackage",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(name: "FlaskReactor", path: "../..")],
    targets: [
        .target(name: "ReadmeSamples", dependencies: [.product(name: "FlaskAPI", package: "FlaskReactor")]),
        .executableTarget(name: "TopLevelTool", dependencies: [.product(name: "FlaskAPI", package: "FlaskReactor")]),
    ],
    swiftLanguageModes: [.v6]
)
