// swift-tools-version:6.0
// A Hummingbird 2 server that keeps its state in a Flask Reactor substance: the sample of
// docs/archiving.md for services (graceful shutdown under swift-service-lifecycle, durable
// acknowledgements). Built by CI; its shutdown is checked by check.sh.
import PackageDescription

let package = Package(
    name: "NotesServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FlaskReactor", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "NotesServer",
            dependencies: [
                .product(name: "FlaskAPI", package: "FlaskReactor"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        )
    ]
)
