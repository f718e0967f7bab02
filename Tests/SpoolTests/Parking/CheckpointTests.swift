import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Checkpoints (#17 item 2): a cursor recorded with the running job in the record that renews its
/// lease, given to the next attempt after a crash, a failure or a stop, bounded, kept by compaction.
@Suite(.blocking) struct CheckpointTests {
    @Test func theNextAttemptAfterACrashReceivesTheLastCheckpoint() throws {
        let temp = TemporaryDirectory("spool-checkpoint")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.runningJobsAtOpen = .reclaim
        configuration.retryPolicy = .table([0], maxAttempts: 5)
        var queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "sync", id: "s"))
        var lease = try #require(try queue.claim(leaseDuration: 30))
        #expect(lease.job.checkpoint == nil)
        clock.advance(by: 20)
        lease = try queue.checkpoint(lease, Data("page-1".utf8), renewingFor: 30)
        // The checkpoint renewed the lease: 30 s from its record, not from the claim.
        #expect(lease.expiresAt == Millis.date(Millis.from(clock.now().addingTimeInterval(30))))
        lease = try queue.checkpoint(lease, Data("page-2".utf8))
        // A crash: the queue is dropped without another record (the state replays from the log).
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(queue.recoveryReport.reclaimedJobs == ["s"])
        let next = try #require(try queue.claim())
        #expect(next.attempt == 2 && next.job.checkpoint == Data("page-2".utf8))
        // A failure keeps it; a success clears it.
        try queue.fail(next, error: "x")
        let third = try #require(try queue.claim())
        #expect(third.job.checkpoint == Data("page-2".utf8))
        let done = try queue.complete(third)
        #expect(done.checkpoint == nil)
        try closeChecked(queue)
    }

    @Test func aCheckpointOverTheLimitIsATypedErrorAndWritesNothing() throws {
        let temp = TemporaryDirectory("spool-checkpoint")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "sync", id: "s"))
        let lease = try #require(try queue.claim())
        try queue.checkpoint(lease, Data(count: JobLimits.maxCheckpointBytes))
        let lsn = queue.engine.stateSnapshot.jobs["s"]!.checkpoint?.count
        expectError(.checkpointTooLarge) { try queue.checkpoint(lease, Data(count: JobLimits.maxCheckpointBytes + 1)) }
        #expect(queue.engine.stateSnapshot.jobs["s"]!.checkpoint?.count == lsn)
        try queue.complete(lease)
        expectError(.leaseLost) { try queue.checkpoint(lease, Data("late".utf8)) }
        try closeChecked(queue)
    }

    @Test func compactionKeepsACheckpointOfAnEnqueuedJob() throws {
        let temp = TemporaryDirectory("spool-checkpoint")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.retryPolicy = .table([0], maxAttempts: 5)
        var queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "sync", id: "s"))
        try queue.enqueue(NewJob(kind: "sync", id: "plain"))
        let lease = try #require(try queue.claim(kind: "sync"))
        try queue.checkpoint(lease, Data([0, 1, 2, 255]))
        try queue.fail(lease, error: "stopped")
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.job("s")?.checkpoint == Data([0, 1, 2, 255]))
        #expect(try queue.job("plain")?.checkpoint == nil)
        try closeChecked(queue)
    }
}
