// swift-tools-version:6.0
// A sample iOS app that uploads photos through Spool's Apple product, SpoolApp, with a share extension
// that hands photos to it. The sources are an app's: an Xcode project's app and extension targets
// compile them (SwiftPM builds no iOS app). On Linux, CI type-checks them against stand-ins of
// Apple's frameworks (.ci/typecheck-darwin in the repository's root).
import PackageDescription

let package = Package(
    name: "PhotoUploads",
    platforms: [.iOS(.v15)],
    dependencies: [.package(name: "Spool", path: "../..")],
    targets: [
        // What the app and the extension share: the queue in the app group, the upload job.
        .target(name: "PhotoUploadsShared", dependencies: [.product(name: "SpoolApp", package: "Spool")]),
        // The app: one call at launch, its lifecycle and the system's session events forwarded.
        .executableTarget(name: "PhotoUploadsApp", dependencies: ["PhotoUploadsShared"]),
        // The share extension: enqueues the upload as a producer and starts its transfer.
        .target(name: "PhotoUploadsShareExtension", dependencies: ["PhotoUploadsShared"]),
    ],
    swiftLanguageModes: [.v6]
)
