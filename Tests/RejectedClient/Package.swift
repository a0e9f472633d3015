// swift-tools-version: 6.2
// Code that must NOT compile: each target is a racing pattern that Swift 6 mode must refuse when it
// uses Flask (and one a misspelling the package refuses with advice). `check.sh` builds each target and checks that it fails with the expected message;
// CI runs it. (Each pattern is a target of its own: the compiler stops reporting some errors, such
// as region-isolation ones, once another error was found in the same module.)
import PackageDescription

let flask: Target.Dependency = .product(name: "FlaskAPI", package: "FlaskReactor")

let package = Package(
    name: "RejectedClient",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(name: "FlaskReactor", path: "../..")],
    targets: [
        .target(name: "NonSendableOwner", dependencies: [flask]),
        .target(name: "NonSendableFlaskReactor", dependencies: [flask]),
        .target(name: "ReactionLeavesHandler", dependencies: [flask]),
        .target(name: "ChainShared", dependencies: [flask]),
        .target(name: "BusConfinedShared", dependencies: [flask]),
        .target(name: "DefinedMixerKeepsState", dependencies: [flask]),
        .target(name: "SubstancesNotInArray", dependencies: [flask]),
        // The package's lock is no product: its source is compiled here as it is (a link to it).
        .target(name: "FlaskLockingSource"),
        .target(name: "LockedValueLeak", dependencies: ["FlaskLockingSource"]),
    ],
    swiftLanguageModes: [.v6]
)
