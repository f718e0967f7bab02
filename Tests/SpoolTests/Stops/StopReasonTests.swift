import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Every attempt that ends records why (``Job/lastStopReason``), durably: through a reopen and a compaction.
@Suite(.blocking) struct StopReasonTests {
    /// A queue on a manual clock, its directory, and a reopen that keeps the clock.
    final class Fixture {
        let temp = TemporaryDirectory("spool-stops")
        let clock = ManualClock()
        var queue: JobQueue
        var configuration: Configuration

        init(runningJobsAtOpen: Configuration.RunningJobsAtOpen = .reclaim) throws {
            configuration = testConfiguration(clock: clock)
            configuration.runningJobsAtOpen = runningJobsAtOpen
            configuration.leaseDuration = 30
            queue = try JobQueue(directory: temp.queue, configuration: configuration)
        }

        func reopen() throws {
            try queue.close()
            queue = try JobQueue(directory: temp.queue, configuration: configuration)
        }

        func job(_ id: JobID) throws -> Job { try #require(try queue.job(id)) }

        func claim(_ id: JobID) throws -> Lease {
            let lease = try #require(try queue.claim())
            #expect(lease.job.id == id)
            return lease
        }

        func tearDown() throws {
            try closeChecked(queue)
            temp.cleanup()
        }
    }

    @Test func eachEndOfAnAttemptRecordsItsReason() throws {
        let fixture = try Fixture()
        let queue = fixture.queue
        let succeeded = try queue.enqueue(NewJob(kind: "k"))
        try queue.complete(try fixture.claim(succeeded))
        let failed = try queue.enqueue(NewJob(kind: "k"))
        try queue.fail(try fixture.claim(failed), error: "HTTP 503")
        let cancelled = try queue.enqueue(NewJob(kind: "k"))
        _ = try fixture.claim(cancelled)
        try queue.cancel(cancelled)
        let neverRan = try queue.enqueue(NewJob(kind: "k"))
        try queue.cancel(neverRan)
        let expired = try queue.enqueue(NewJob(kind: "k"))
        _ = try fixture.claim(expired)
        fixture.clock.advance(by: 31)
        #expect(try queue.reclaimExpiredLeases() == [expired])

        #expect(try fixture.job(succeeded).lastStopReason == .succeeded)
        #expect(try fixture.job(failed).lastStopReason == .failed)
        #expect(try fixture.job(cancelled).lastStopReason == .cancelled)
        #expect(try fixture.job(neverRan).lastStopReason == nil, "no attempt ended")
        #expect(try fixture.job(expired).lastStopReason == .leaseExpired)
        #expect(try fixture.job(expired).attempts == 1, "an expired lease spends its attempt")
        try fixture.tearDown()
    }

    @Test func aCrashSpendsTheAttemptAndIsRecordedAsOrphaned() throws {
        let fixture = try Fixture()
        let id = try fixture.queue.enqueue(NewJob(kind: "k"))
        _ = try fixture.claim(id)
        try fixture.reopen()  // the process "ended" with the job running
        let job = try fixture.job(id)
        #expect(job.state == .enqueued && job.attempts == 1, "a crash still spends its attempt")
        #expect(job.lastStopReason == .orphaned)
        try fixture.tearDown()
    }

    /// A build that no longer runs a kind abandons its jobs at open: a running one's attempt ends as a
    /// failure (FORMAT.md, *Stops*), an enqueued one ran no attempt and gets no reason; both survive a reopen.
    @Test func anAbandonedRunningJobRecordsAFailureAndAnEnqueuedOneNoReason() throws {
        let fixture = try Fixture(runningJobsAtOpen: .keepUnexpiredLeases)
        let running = try fixture.queue.enqueue(NewJob(kind: "gone"))
        let waiting = try fixture.queue.enqueue(NewJob(kind: "gone", delay: 60))
        _ = try fixture.claim(running)
        fixture.configuration.knownKinds = ["k"]
        try fixture.reopen()
        #expect(fixture.queue.recoveryReport.unrunnableJobs == [running, waiting])
        for _ in 0..<2 {
            #expect(try fixture.job(running).isFailed && fixture.job(running).lastStopReason == .failed)
            #expect(try fixture.job(waiting).isFailed && fixture.job(waiting).lastStopReason == nil)
            try fixture.reopen()
        }
        try fixture.tearDown()
    }

    @Test func aReleaseGivesTheAttemptBackAndRecordsTheInterruption() throws {
        let fixture = try Fixture()
        let id = try fixture.queue.enqueue(NewJob(kind: "k", maxAttempts: 1))
        let start = fixture.clock.now()
        for reason in [StopReason.systemTimeExpired, .constraintsUnmet, .runnerStopped] {
            let lease = try fixture.claim(id)
            #expect(lease.attempt == 1)
            fixture.clock.advance(by: 1)
            let job = try fixture.queue.release(lease, reason: reason)
            #expect(job.state == .enqueued && job.attempts == 0, "\(reason): given back")
            #expect(job.lastStopReason == reason && job.nextRetryAt == nil && job.dueAt == start)
            #expect(job.lastError == nil, "a release is not a failure")
        }
        // The last attempt of a job with one attempt was given back three times: it still runs.
        let lease = try fixture.claim(id)
        try fixture.queue.complete(lease)
        try fixture.tearDown()
    }

    @Test func aReleaseForAReasonThatIsNotAnInterruptionIsRefused() throws {
        let fixture = try Fixture()
        let id = try fixture.queue.enqueue(NewJob(kind: "k"))
        let lease = try fixture.claim(id)
        for reason in StopReason.allCases where !reason.isInterruption {
            expectError(.invalidArgument) { try fixture.queue.release(lease, reason: reason) }
        }
        #expect(try fixture.job(id).state == .running, "nothing recorded")
        try fixture.queue.complete(lease)
        expectError(.leaseLost) { try fixture.queue.release(lease, reason: .runnerStopped) }
        try fixture.tearDown()
    }

    @Test func reasonsSurviveAReopenAndACompaction() throws {
        let fixture = try Fixture()
        var expected: [JobID: StopReason] = [:]
        let done = try fixture.queue.enqueue(NewJob(kind: "k"))
        try fixture.queue.complete(try fixture.claim(done))
        expected[done] = .succeeded
        let released = try fixture.queue.enqueue(NewJob(kind: "k"))
        try fixture.queue.release(try fixture.claim(released), reason: .systemTimeExpired)
        expected[released] = .systemTimeExpired
        let orphan = try fixture.queue.enqueue(NewJob(kind: "o"))
        #expect(try fixture.queue.claim(kind: "o")?.job.id == orphan)
        try fixture.reopen()
        expected[orphan] = .orphaned
        for (id, reason) in expected { #expect(try fixture.job(id).lastStopReason == reason, "after reopen") }
        _ = try fixture.queue.compact()
        try fixture.reopen()
        for (id, reason) in expected { #expect(try fixture.job(id).lastStopReason == reason, "after compaction") }
        try fixture.tearDown()
    }
}

/// The stop operations' bytes, as FORMAT.md's example in *Stops* gives them.
@Suite(.blocking) struct StopOperationBytesTests {
    @Test func stopOperationBytes() throws {
        let body = TransactionCodec.encode([
            PlannedOperation(.release(id: "j", token: 1, at: 0, reason: .systemTimeExpired))
        ])
        #expect(body == [0x06, 0x01, 0x1e, 0x01, 0x6a, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x08])
        let document = try String(contentsOfFile: packageRoot() + "/FORMAT.md", encoding: .utf8)
        #expect(document.contains("`06 01 1e 01 6a 01 00 00 00 00 00 00 00 00 08`"))
        // Every operation round-trips; a release of a reason that is not an interruption does not decode.
        let operations: [LogOperation] = [
            .release(id: "j", token: 9, at: -5, reason: .constraintsUnmet),
            .snooze(id: "j", token: 9, at: 3, runAt: 60_000, givesBack: false),
            .stopReason(id: "j", reason: .orphaned),
        ]
        let encoded = TransactionCodec.encode(operations.map { PlannedOperation($0) })
        let decoded = try encoded.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        #expect(decoded == operations)
        var bad = TransactionCodec.encode([PlannedOperation(.release(id: "j", token: 1, at: 0, reason: .runnerStopped))]
        )
        bad[bad.count - 1] = 2  // failed: not an interruption
        #expect(throws: TransactionCodec.Failure.self) {
            try bad.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        }
    }
}
