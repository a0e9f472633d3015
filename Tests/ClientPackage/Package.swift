// swift-tools-version: 6.0
// A downstream client of FlaskAPI, FlaskTools and FlaskTesting: it compiles the seed README samples
// (the same files the FlaskAPITests target runs) through the public API only. CI builds it with
// warnings as errors.
import PackageDescription

let package = Package(
    name: "ClientPackage",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(name: "FlaskReactor", path: "../..")],
    targets: [
        // The samples of the tools and testing guides import FlaskTools and FlaskTesting, as a
        // user's code does: each a product of its own, not re-exported by FlaskAPI.
        .target(
            name: "ReadmeSamples",
            dependencies: [
                .product(name: "FlaskAPI", package: "FlaskReactor"),
                .product(name: "FlaskTools", package: "FlaskReactor"),
                .product(name: "FlaskTesting", package: "FlaskReactor"),
            ]),
        .executableTarget(
            name: "TopLevelTool",
            dependencies: [
                .product(name: "FlaskAPI", package: "FlaskReactor"),
                .product(name: "FlaskTools", package: "FlaskReactor"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
