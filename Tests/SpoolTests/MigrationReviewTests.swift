import Foundation
import Testing
@_spi(Benchmarks) @testable import Spool

/// Review of job migrations and known kinds as an app uses them.
@Suite struct MigrationReviewTests {
    private func configuration(_ clock: ManualClock, _ migrations: [JobMigration] = []) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        configuration.autoCompaction = nil
        configuration.migrations = migrations
        return configuration
    }

    /// A chain of jobs of a kind the build cannot run: abandoning the first cancels the ones waiting
    /// for it (chain rule), so they must not be abandoned after it (an abandon of a cancelled job does
    /// not apply: open trapped after writing it, and every later open failed on it).
    @Test func knownKindsAbandonAChainOfUnknownJobsOnce() throws {
        let temporary = TemporaryDirectory("migration-review")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "gone", id: "a"))
        _ = try queue.enqueue(NewJob(kind: "known", id: "b", dependencies: ["a"]))
        _ = try queue.enqueue(NewJob(kind: "gone", id: "c", dependencies: ["b"]))
        _ = try queue.enqueue(NewJob(kind: "gone", id: "d"))
        try queue.close()
        var known = configuration(clock)
        known.knownKinds = ["known"]
        queue = try JobQueue(directory: temporary.queue, configuration: known)
        #expect(queue.recoveryReport.unrunnableJobs == ["a", "d"])
        #expect(try queue.job("a")?.isPermanentlyFailed == true)
        #expect(try queue.job("b")?.state == .cancelled)
        #expect(try queue.job("c")?.state == .cancelled)
        #expect(try queue.job("d")?.isPermanentlyFailed == true)
        checkInvariants(queue.engine.stateSnapshot)
        try queue.close()
        // The log replays.
        queue = try JobQueue(directory: temporary.queue, configuration: known)
        #expect(queue.recoveryReport.unrunnableJobs.isEmpty)
        #expect(try queue.job("c")?.state == .cancelled)
        try queue.close()
    }
}
