import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Job migrations and known kinds as an app uses them: chains of unknown kinds, splits of running jobs,
/// rewrites inside a migration that ends a prerequisite.
@Suite(.blocking) struct MigrationSemanticsTests {
    private func configuration(_ clock: ManualClock, _ migrations: [JobMigration] = []) -> Configuration {
        migrationTestConfiguration(clock, migrations)
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
        try closeChecked(queue)
        var known = configuration(clock)
        known.knownKinds = ["known"]
        queue = try JobQueue(directory: temporary.queue, configuration: known)
        #expect(queue.recoveryReport.unrunnableJobs == ["a", "d"])
        #expect(try queue.job("a")?.isFailed == true)
        #expect(try queue.job("b")?.state == .cancelled)
        #expect(try queue.job("c")?.state == .cancelled)
        #expect(try queue.job("d")?.isFailed == true)
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
        // The log replays.
        queue = try JobQueue(directory: temporary.queue, configuration: known)
        #expect(queue.recoveryReport.unrunnableJobs.isEmpty)
        #expect(try queue.job("c")?.state == .cancelled)
        try closeChecked(queue)
    }

    /// A split running job's lease ends: its worker's result is refused with leaseLost, whether the
    /// original is gone or a replacement took its id (a Lease shows the job existed).
    @Test func aSplitRunningJobsWorkerResultIsRefused() throws {
        let temporary = TemporaryDirectory("migration-review")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "batch", payload: Data("x".utf8), id: "split", maxAttempts: 3))
        _ = try queue.enqueue(NewJob(kind: "old", id: "dropped", maxAttempts: 3))
        _ = try queue.enqueue(NewJob(kind: "batch2", payload: Data("y".utf8), id: "same", maxAttempts: 3))
        let sameLease = try #require(try queue.claim(kind: "batch2"))
        let splitLease = try #require(try queue.claim(kind: "batch"))
        let droppedLease = try #require(try queue.claim(kind: "old"))
        try closeChecked(queue)
        let migration = JobMigration(number: 1) { job, payload in
            switch job.kind {
            case "batch": return .split([.init(kind: "item", payload: payload)])
            case "batch2": return .split([.init(kind: "item", payload: payload, id: job.id)])
            case "old": return .drop
            default: return .keep
            }
        }
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [migration]))
        #expect(try queue.job("split/1")?.state == .enqueued)
        expectError(.leaseLost) { try queue.complete(droppedLease) }
        expectError(.leaseLost) { try queue.complete(splitLease) }
        expectError(.leaseLost) { try queue.fail(splitLease, error: "x") }
        expectError(.leaseLost) { try queue.renew(splitLease) }
        expectError(.jobNotFound, "a bare id and token cannot show the job existed") {
            try queue.complete(splitLease.job.id, token: splitLease.token)
        }
        #expect(try queue.job("same")?.state == .enqueued)
        expectError(.leaseLost) { try queue.complete(sameLease) }
        try closeChecked(queue)
    }

    /// A migration ends a prerequisite (invalid) and rewrites the job waiting for it, which holds a unique
    /// key: the waiting job ends cancelled, its key free, the same after replay.
    @Test func aRewriteOfAJobWhosePrerequisiteTheMigrationEndsStaysCancelled() throws {
        let temporary = TemporaryDirectory("migration-review")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "a", id: "a"))
        _ = try queue.enqueue(NewJob(kind: "c", id: "c", uniqueKey: "k", dependencies: ["a"]))
        _ = try queue.enqueue(NewJob(kind: "d", id: "d"))
        try closeChecked(queue)
        let migration = JobMigration(number: 1) { job, payload in
            switch job.kind {
            case "a": return .invalid(reason: "no")
            case "c": return .rewrite(payload: Data("new".utf8))
            case "d": return .split([.init(kind: "e", payload: payload, uniqueKey: "k")])
            default: return .keep
            }
        }
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [migration]))
        let after = try queue.jobs()
        #expect(try queue.job("c")?.state == .cancelled)
        #expect(try queue.job("d/1")?.state == .enqueued)
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [migration]))
        #expect(try queue.jobs() == after)
        checkInvariants(queue.engine.stateSnapshot)
        #expect(queue.engine.stateSnapshot.uniqueKeys["k"] == "d/1")
        try closeChecked(queue)
    }
}
