import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The job state machine, the backoff schedule and the restart contract,
/// with the clock pinned: no test sleeps.
@Suite(.blocking) struct LifecycleTests {
    @Test(.onThePool) func theFirstFailureSetsNextRetryAtFiveSecondsOut() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let id = try await queue.enqueue(NewJob(kind: "sync"))
        let lease = try #require(try await queue.claim())
        #expect(lease.job.id == id && lease.attempt == 1 && lease.job.state == .running)
        let now = clock.now()
        let failed = try await queue.fail(lease, error: "offline")
        let deadline = try #require(failed.nextRetryAt)
        #expect(failed.state == .enqueued && failed.attempts == 1 && failed.lastError == "offline")
        #expect(deadline >= now.addingTimeInterval(4.9) && deadline <= now.addingTimeInterval(5.1))
        try closeChecked(queue)
    }

    @Test func futureDeadlinesAreNeverReady() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        try queue.enqueue(NewJob(kind: "sync", id: "later", delay: 60))
        #expect(try queue.claim() == nil)
        #expect(try queue.readyJobs(at: clock.now()).isEmpty)
        #expect(try queue.readyJobs(at: clock.now().addingTimeInterval(59.999)).isEmpty)
        #expect(try queue.readyJobs(at: clock.now().addingTimeInterval(60)).map(\.id) == ["later"])
        #expect(try queue.nextDeadline() == clock.now().addingTimeInterval(60))
        clock.advance(by: 59.9)
        #expect(try queue.claim() == nil)
        clock.advance(by: 0.1)
        #expect(try queue.claim()?.job.id == "later")
        try closeChecked(queue)
    }

    @Test func theBackoffTableIsFollowedAndTheFifthFailureIsFinal() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let id = try queue.enqueue(NewJob(kind: "sync"))
        let expectedDelays: [TimeInterval] = [5, 15, 45, 135]
        for (index, delay) in expectedDelays.enumerated() {
            let lease = try #require(try queue.claim())
            #expect(lease.attempt == index + 1)
            let failed = try queue.fail(lease, error: "attempt \(index + 1)")
            #expect(failed.nextRetryAt == clock.now().addingTimeInterval(delay))
            // Not due a moment before its deadline, due at it.
            clock.advance(by: delay - 0.001)
            #expect(try queue.claim() == nil)
            clock.advance(by: 0.001)
        }
        let last = try #require(try queue.claim())
        #expect(last.attempt == 5)
        let failed = try queue.fail(last, error: "attempt 5")
        #expect(failed.state == .failed && failed.nextRetryAt == nil && failed.attempts == 5)
        #expect(failed.isFailed)
        #expect(try queue.failedJobs().map(\.id) == [id])
        clock.advance(by: 100_000)
        #expect(try queue.claim() == nil)
        #expect(try queue.nextDeadline() == nil)
        try closeChecked(queue)

        // After a restart the failed job is still failed, still without deadline.
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        #expect(try reopened.job(id)?.state == .failed)
        #expect(try reopened.job(id)?.nextRetryAt == nil)
        #expect(try reopened.claim() == nil)
        // A manual retry restores a full budget.
        let retried = try reopened.retry(id)
        #expect(retried.state == .enqueued && retried.attempts == 0 && retried.nextRetryAt == nil)
        #expect(try reopened.claim()?.attempt == 1)
        try closeChecked(reopened)
    }

    @Test func terminalFailureEndsAtOnceAndCustomPoliciesApply() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.retryPolicy = .table([1, 2], maxAttempts: 3)
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "a", id: "terminal"))
        try queue.enqueue(NewJob(kind: "b", id: "table"))
        try queue.enqueue(NewJob(kind: "c", id: "own-budget", maxAttempts: 1))
        let terminal = try #require(try queue.claim(kind: "a"))
        #expect(try queue.fail(terminal, error: "bad request", terminal: true).state == .failed)
        var delays: [TimeInterval] = []
        while let lease = try queue.claim(kind: "b") {
            let job = try queue.fail(lease, error: "x")
            guard let next = job.nextRetryAt else { break }
            delays.append(next.timeIntervalSince(clock.now()))
            clock.advance(by: 10)
        }
        #expect(delays == [1, 2])
        #expect(try queue.job("table")?.attempts == 3)
        let single = try #require(try queue.claim(kind: "c"))
        #expect(try queue.fail(single, error: "x").state == .failed)
        try closeChecked(queue)

        let exponential = RetryPolicy.exponential(base: 2, factor: 3, maximum: 50, jitter: 0.5, maxAttempts: 6)
        for attempt in 1...6 {
            let raw = min(50, 2 * pow(3, Double(attempt - 1)))
            for unit in [0.0, 0.5, 0.999] {
                let delay = exponential.delay(afterFailedAttempt: attempt, unitRandom: unit)
                #expect(delay >= raw * 0.5 && delay <= min(50, raw * 1.5), "attempt \(attempt)")
            }
        }
    }

    @Test func readyOrderIsPriorityThenDueTimeThenEnqueueOrder() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let start = clock.now()
        try queue.enqueue(NewJob(kind: "k", id: "low-first"))
        try queue.enqueue(NewJob(kind: "k", id: "high-late", priority: 5, runAt: start.addingTimeInterval(-10)))
        try queue.enqueue(NewJob(kind: "k", id: "high-early", priority: 5, runAt: start.addingTimeInterval(-20)))
        try queue.enqueue(NewJob(kind: "k", id: "low-second"))
        try queue.enqueue(NewJob(kind: "k", id: "high-future", priority: 9, delay: 30))
        try queue.enqueue(NewJob(kind: "k", id: "high-late-twin", priority: 5, runAt: start.addingTimeInterval(-10)))
        let expected: [JobID] = ["high-early", "high-late", "high-late-twin", "low-first", "low-second"]
        #expect(try queue.readyJobs(at: clock.now()).map(\.id) == expected)
        var claimed: [JobID] = []
        while let lease = try queue.claim() { claimed.append(lease.job.id) }
        #expect(claimed == expected)
        clock.advance(by: 30)
        #expect(try queue.claim()?.job.id == "high-future")
        try closeChecked(queue)
    }

    @Test func closeAndReopenKeepsJobsAttemptsDeadlinesAndLeases() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", payload: Data([0, 1, 2, 255]), id: "retrying", uniqueKey: "u1"))
        try queue.enqueue(NewJob(kind: "k", id: "leased", priority: -1))
        try queue.enqueue(NewJob(kind: "k", id: "waiting", delay: 90, maxAttempts: 7))
        let first = try #require(try queue.claim())
        try queue.fail(first, error: "boom")
        let lease = try #require(try queue.claim(leaseDuration: 600))
        #expect(lease.job.id == "leased")
        let before = comparableJobs(queue.engine.stateSnapshot)
        try closeChecked(queue)

        let reopened = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(comparableJobs(reopened.engine.stateSnapshot) == before)
        #expect(try reopened.payload(of: "retrying") == Data([0, 1, 2, 255]))
        // The lease survived, so its holder can still complete.
        #expect(try reopened.complete(lease).state == .succeeded)
        try closeChecked(reopened)
    }

    @Test func runningJobsAreReclaimedAtOpenAndSpendTheirBudget() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.retryPolicy = .table([5], maxAttempts: 2)
        var queue = try JobQueue(directory: temp.queue, configuration: configuration)
        let id = try queue.enqueue(NewJob(kind: "crashy"))
        // The app dies twice while the job runs.
        for round in 1...2 {
            let lease = try #require(try queue.claim(), "round \(round)")
            #expect(lease.attempt == round)
            try closeChecked(queue)
            queue = try JobQueue(directory: temp.queue, configuration: configuration)
            #expect(queue.recoveryReport.reclaimedJobs == [id])
            clock.advance(by: 5)
        }
        let job = try #require(try queue.job(id))
        #expect(job.state == .failed && job.attempts == 2 && job.nextRetryAt == nil)
        #expect(job.lastError?.contains("orphaned") == true)
        #expect(try queue.claim() == nil)
        try closeChecked(queue)
    }

    @Test func expiredLeasesAreReclaimedByEitherClockOrAReboot() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        try queue.enqueue(NewJob(kind: "k", id: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "b"))
        try queue.enqueue(NewJob(kind: "k", id: "c"))
        let start = clock.now()

        // Wall clock: the user moves the time forward past the expiry; monotonic barely moved.
        let a = try #require(try queue.claim(leaseDuration: 60))
        clock.setWallClock(start.addingTimeInterval(61))
        #expect(try queue.reclaimExpiredLeases() == [a.job.id])
        expectError(.leaseLost) { try queue.complete(a) }
        clock.setWallClock(start)

        // Monotonic clock: the wall clock is set back, yet time passed.
        let b = try #require(try queue.claim(kind: nil, leaseDuration: 60))
        #expect(b.job.id == "b")
        clock.advance(by: 30)
        clock.setWallClock(start)
        #expect(try queue.reclaimExpiredLeases().isEmpty)
        clock.advance(by: 31)
        clock.setWallClock(start)
        #expect(try queue.reclaimExpiredLeases() == ["b"])

        // A reboot expires every lease of the previous boot.
        let c = try #require(try queue.claim(leaseDuration: 3600))
        #expect(c.job.id == "c")
        clock.reboot()
        #expect(try queue.reclaimExpiredLeases() == ["c"])
        #expect(try queue.job("c")?.state == .enqueued)
        #expect(try queue.job("c")?.attempts == 1)
        try closeChecked(queue)
    }

    @Test(.onThePool) func cancellingARunningJobDiscardsItsLateResult() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try await queue.enqueue(NewJob(kind: "k", id: "doomed"))
        let lease = try #require(try await queue.claim())
        #expect(try await queue.cancel("doomed").state == .cancelled)
        await expectError(.leaseLost) { try await queue.complete(lease) }
        await expectError(.leaseLost) { try await queue.fail(lease, error: "late") }
        #expect(try queue.job("doomed")?.state == .cancelled)
        // Cancelling again changes nothing; a cancelled job can be retried by a person.
        #expect(try await queue.cancel("doomed").state == .cancelled)
        #expect(try await queue.retry("doomed").state == .enqueued)
        try closeChecked(queue)
    }

    @Test func uniqueKeysKeepOrReplaceAndFreeOnceFinished() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        let first = try queue.enqueue(NewJob(kind: "sync", uniqueKey: "account-1"))
        let kept = try queue.enqueue(NewJob(kind: "sync", uniqueKey: "account-1"))
        #expect(kept == first)
        #expect(try queue.jobs().count == 1)
        let lease = try #require(try queue.claim())
        let replacement = try queue.enqueue(NewJob(kind: "sync", uniqueKey: "account-1", uniquePolicy: .replace))
        #expect(replacement != first)
        #expect(try queue.job(first)?.state == .cancelled)
        expectError(.leaseLost) { try queue.complete(lease) }
        // The old job cannot take its key back while the replacement is unfinished.
        expectError(.uniqueKeyConflict) { try queue.retry(first) }
        let second = try #require(try queue.claim())
        try queue.complete(second)
        let third = try queue.enqueue(NewJob(kind: "sync", uniqueKey: "account-1"))
        #expect(third != replacement)
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
    }

    @Test func rescheduleAndDelete() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        try queue.enqueue(NewJob(kind: "k", id: "r"))
        try queue.reschedule("r", runAt: clock.now().addingTimeInterval(120))
        #expect(try queue.claim() == nil)
        #expect(try queue.nextDeadline() == clock.now().addingTimeInterval(120))
        try queue.delete("r")
        #expect(try queue.job("r") == nil)
        #expect(try queue.nextDeadline() == nil)
        expectError(.jobNotFound) { try queue.delete("r") }
        try closeChecked(queue)
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        #expect(try reopened.jobs().isEmpty)
        try closeChecked(reopened)
    }
}

/// A job state prints as its name, alone and in a collection (issue #34's smaller points).
@Suite(.blocking) struct JobStateTextTests {
    @Test func aStatePrintsItsNameAloneAndInACollection() {
        #expect("\(JobState.succeeded)" == "succeeded")
        #expect("\([JobState.enqueued, .failed])" == "[enqueued, failed]")
        #expect(String(reflecting: JobState.cancelled) == "cancelled")
    }
}
