// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Spool",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "Spool", targets: ["Spool"]),
        // Spool in an Apple app: background launches, background transfers, device conditions and logging,
        // over small protocols (Linux runs their logic against fakes; the Apple conformances are compiled
        // only where BackgroundTasks, Network and os exist).
        .library(name: "SpoolApp", targets: ["SpoolApp"]),
        // Fakes of every service SpoolApp uses and a driver, for an app's tests (and SpoolApp's own).
        .library(name: "SpoolAppTesting", targets: ["SpoolAppTesting"]),
        .executable(name: "spool", targets: ["SpoolCLI"]),
        .executable(name: "spool-bench", targets: ["SpoolBench"]),
    ],
    targets: [
        .target(name: "Spool"),
        .target(name: "SpoolApp", dependencies: ["Spool"]),
        .target(name: "SpoolAppTesting", dependencies: ["SpoolApp", "Spool"]),
        // The commands of `spool`, and what they share with the process tests' harness.
        .target(name: "SpoolCommands", dependencies: ["Spool"]),
        .executableTarget(name: "SpoolCLI", dependencies: ["SpoolCommands"]),
        // The workloads the process tests run as child processes and kill; not part of `spool`.
        .executableTarget(name: "SpoolHarness", dependencies: ["Spool", "SpoolCommands"], path: "Tests/SpoolHarness"),
        .executableTarget(name: "SpoolBench", dependencies: ["Spool"], path: "Benchmarks/SpoolBench"),
        // What more than one test target uses (no product: apps never see it).
        .target(name: "SpoolTestSupport", path: "Tests/SpoolTestSupport"),
        .testTarget(
            name: "SpoolTests",
            dependencies: ["Spool", "SpoolCommands", "SpoolCLI", "SpoolHarness", "SpoolTestSupport"],
            // Checked-in queue directories, read through #filePath (see FormatFixture.swift).
            exclude: ["Fixtures"]),
        // Tests written as an app writes them: `import Spool`, public API only, no @testable.
        .testTarget(name: "AppStyleTests", dependencies: ["Spool", "SpoolTestSupport"]),
        .testTarget(name: "SpoolAppTests", dependencies: ["SpoolApp", "SpoolAppTesting", "Spool", "SpoolTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
