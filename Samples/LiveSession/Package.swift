// swift-tools-version: 6.2
// A small todo list with the live session view on: the sample of docs/live-session.md. It prints
// the page's address (with its token) as its first line, then reads commands on standard input.
// Built by CI, whose browser test drives the page while the app runs.
import PackageDescription

let package = Package(
    name: "LiveSession",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FlaskReactor", path: "../.."),
        .package(name: "FlaskLiveSession", path: "../../FlaskLiveSession"),
    ],
    targets: [
        .executableTarget(
            name: "LiveSession",
            dependencies: [
                .product(name: "FlaskAPI", package: "FlaskReactor"),
                .product(name: "FlaskLiveSession", package: "FlaskLiveSession"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
