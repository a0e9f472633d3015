// swift-tools-version: 6.2
// The live session view (issue #54): a page in the browser that shows a running app's mixes as
// they happen and moves the app in time. A package of its own, so that the core products stay
// free of dependencies: it serves its page with FlyingFox (docs/decisions.md says why that one).
import PackageDescription

let package = Package(
    name: "FlaskLiveSession",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // Debugging only, like FlaskTools: an app ships without it.
        .library(name: "FlaskLiveSession", targets: ["FlaskLiveSession"])
    ],
    dependencies: [
        .package(name: "FlaskReactor", path: ".."),
        .package(url: "https://github.com/swhitty/FlyingFox.git", from: "0.27.1"),
    ],
    targets: [
        .target(
            name: "FlaskLiveSession",
            dependencies: [
                .product(name: "FluxBus", package: "FlaskReactor"),
                .product(name: "Substances", package: "FlaskReactor"),
                .product(name: "FlaskTools", package: "FlaskReactor"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            // The page, embedded in the module's code at build time (no bundle to find at run
            // time, on Linux or in an app).
            resources: [.embedInCode("Page/LiveSessionPage.html")]),
        // What the view costs the app, and the page's load time (docs/live-session.md).
        .executableTarget(
            name: "LiveSessionProbe",
            dependencies: [
                "FlaskLiveSession",
                .product(name: "FlaskAPI", package: "FlaskReactor"),
            ]),
        .testTarget(
            name: "FlaskLiveSessionTests",
            dependencies: [
                "FlaskLiveSession",
                .product(name: "FlaskAPI", package: "FlaskReactor"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlaskTools", package: "FlaskReactor"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
