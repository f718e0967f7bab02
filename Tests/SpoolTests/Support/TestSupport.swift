import Foundation
import Testing

@testable import Spool

/// A fresh directory under the system's temporary directory, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init(_ name: String = "spool-test") {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/\(name)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The queue directory inside it (not created).
    var queue: String { path + "/queue" }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// A configuration with a manual clock at a fixed instant.
func testConfiguration(clock: ManualClock = ManualClock()) -> Configuration {
    var configuration = Configuration()
    configuration.clock = clock
    return configuration
}

/// The queue's only log file.
func logFilePath(_ directory: String) -> String {
    directory + "/" + QueueDirectoryLayout.logFileName(sequence: 1)
}

func readFile(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Checks the invariants every queue state must hold, whatever happened before
/// (``QueueState/brokenInvariants()``, which the library runs in `spool verify` too).
func checkInvariants(_ state: QueueState, sourceLocation: SourceLocation = #_sourceLocation) {
    let broken = state.brokenInvariants()
    #expect(
        broken.isEmpty, "broken invariants:\n\(broken.map(\.description).joined(separator: "\n"))",
        sourceLocation: sourceLocation)
}

/// Jobs compared field by field, ignoring the ready index's bookkeeping.
func comparableJobs(_ state: QueueState) -> [String: StoredJob] {
    state.jobs.mapValues { job in
        var copy = job
        copy.scheduleVersion = 0
        return copy
    }
}

/// Expects `body` to throw a ``SpoolError`` with `code`.
func expectError<T>(
    _ code: SpoolError.Code, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) {
    do {
        _ = try body()
        Issue.record(
            "expected \(code), nothing was thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as SpoolError {
        #expect(error.code == code, "\(error) \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw a ``SpoolError`` with `code`.
func expectError<T>(
    _ code: SpoolError.Code, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record(
            "expected \(code), nothing was thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as SpoolError {
        #expect(error.code == code, "\(error) \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The check at every queue's teardown: the live state holds its invariants, then the queue is
/// closed and the state a fresh read-only replay of its directory builds holds them too and
/// equals the live one (every job, field by field, and the unique-key and dependents indexes).
/// The replay reads in the queue's own recovery mode (a queue opened in salvage over damage is
/// replayed in salvage); a queue on a ``SimulatedDisk`` is replayed from that disk, any other from
/// the real one (not through a fault-injecting wrapper, whose faults are the test's, not the replay's).
/// Not for a queue whose writer failed (its live state may hold what never reached the disk) nor
/// for one opened from a hostile file (its state may break invariants no writer breaks): those
/// tests close the queue themselves and say why. `replay: false` checks the live state only, for a
/// queue whose directory the test damaged on purpose (a replay of it must refuse).
func closeChecked(_ queue: JobQueue, replay: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
    // A background compaction that ends during the close moves every live payload into its snapshot:
    // the state to compare is the one after it (close waits for it too).
    queue.engine.waitForBackgroundCompaction()
    let live = queue.engine.stateSnapshot
    checkInvariants(live, sourceLocation: sourceLocation)
    try queue.close()
    guard replay else { return }
    let fileSystem: any FileSystem = (queue.engine.configuration.fileSystem as? SimulatedDisk) ?? POSIXFileSystem()
    let replayed = try QueueDirectory(path: queue.directory, fileSystem: fileSystem)
        .inspect(mode: queue.engine.configuration.recoveryMode) { $0.state }
    checkInvariants(replayed, sourceLocation: sourceLocation)
    #expect(
        comparableJobs(replayed) == comparableJobs(live), "replay differs from the live state",
        sourceLocation: sourceLocation)
    #expect(
        replayed.uniqueKeys == live.uniqueKeys && replayed.earlierKeyCarriers == live.earlierKeyCarriers,
        sourceLocation: sourceLocation)
    #expect(
        replayed.dependents.mapValues(Set.init) == live.dependents.mapValues(Set.init), sourceLocation: sourceLocation)
}

/// The package's root directory, found from this file's path (`Tests/SpoolTests/Support/TestSupport.swift`),
/// whichever suite asks: the one place that knows how deep the tests lie.
func packageRoot() -> String {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.path
}
