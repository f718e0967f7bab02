import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A handler, or app code holding a lease, runs a job again later without failing it.
@Suite(.blocking) struct SnoozeTests {
    @Test(.onThePool) func aHandlersSnoozeRunsTheJobAgainAtTheTimeWithTheAttemptGivenBack() async throws {
        let fixture = try RuntimeFixture()
        let runs = Locked(0)
        try fixture.runner.register(kind: "poll") { _, context in
            let run = runs.withLock {
                $0 += 1
                return $0
            }
            if run == 1 { try context.snooze(for: 60) }
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "poll", maxAttempts: 1))
        let start = fixture.clock.now()
        fixture.runner.start()
        await fixture.events.wait { $0.contains(.snoozed(id)) }
        let job = try fixture.job(id)
        #expect(job.state == .enqueued && job.attempts == 0 && job.lastStopReason == .snoozed)
        #expect(job.dueAt == start.addingTimeInterval(60) && job.lastError == nil)
        // Due at the time, not before: the runner claims it when the clock gets there.
        let index = fixture.eventCount
        fixture.clock.advance(by: 60)
        await fixture.waitForEvent(after: index) { $0 == .succeeded(id) }
        #expect(try fixture.job(id).attempts == 1, "the snoozed attempt was given back: this one is the first")
        try await fixture.tearDown()
    }

    @Test func keepAndCountLeaveTheAttemptCountedAndCountEndsTheLastOne() throws {
        let temp = TemporaryDirectory("spool-snooze")
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let later = clock.now().addingTimeInterval(30)

        let kept = try queue.enqueue(NewJob(kind: "kept", maxAttempts: 2))
        var lease = try #require(try queue.claim(kind: "kept"))
        var job = try queue.snooze(lease, until: later, attempt: .keep)
        #expect(job.state == .enqueued && job.attempts == 1 && job.runAt == later, "kept: still counted")
        #expect(job.lastStopReason == .snoozed)
        clock.advance(by: 30)
        lease = try #require(try queue.claim(kind: "kept"))
        #expect(lease.attempt == 2)
        job = try queue.snooze(lease, until: later, attempt: .keep)
        #expect(
            job.state == .enqueued && job.attempts == 1, "the last attempt kept: it runs again, never past the budget")

        let counted = try queue.enqueue(NewJob(kind: "counted", maxAttempts: 2))
        lease = try #require(try queue.claim(kind: "counted"))
        job = try queue.snooze(lease, until: later, attempt: .count)
        #expect(job.state == .enqueued && job.attempts == 1, "counted, one left")
        clock.advance(by: 30)
        lease = try #require(try queue.claim(kind: "counted"))
        job = try queue.snooze(lease, until: later.addingTimeInterval(30), attempt: .count)
        #expect(job.state == .failed && job.attempts == 2 && job.lastError == "snoozed with no attempt left")
        #expect(job.lastStopReason == .snoozed)

        lease = try #require(try queue.claim(kind: "kept"))
        #expect(lease.job.id == kept && lease.attempt == 2)
        expectError(.invalidArgument) { try queue.snooze(lease, until: .distantFuture.addingTimeInterval(1e12)) }
        try queue.complete(lease)
        expectError(.leaseLost) { try queue.snooze(lease, until: later) }
        _ = counted
        try closeChecked(queue)
        temp.cleanup()
    }

    /// `SnoozeAttempt.keep` on the last attempt gives it back (issue #32 item 3, the rule its documentation
    /// states): the claim that runs the job again counts it once more, and a failure then ends the job.
    @Test func keepOnTheLastAttemptGivesItBackAndTheNextClaimCountsItAgain() throws {
        let temp = TemporaryDirectory("spool-snooze")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        _ = try queue.enqueue(NewJob(kind: "kept", maxAttempts: 2))
        var counts: [Int] = []
        for _ in 0..<2 {
            let lease = try #require(try queue.claim(kind: "kept"))
            counts.append(lease.attempt)
            counts.append(try queue.snooze(lease, until: clock.now(), attempt: .keep).attempts)
        }
        let last = try #require(try queue.claim(kind: "kept"))
        counts.append(last.attempt)
        let failed = try queue.fail(last, error: "still down")
        #expect(counts == [1, 1, 2, 1, 2])
        #expect(failed.state == .failed && failed.attempts == 2)
        try closeChecked(queue)
    }

    @Test func aSnoozeSurvivesAReopenAndACompaction() throws {
        let temp = TemporaryDirectory("spool-snooze")
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let id = try queue.enqueue(NewJob(kind: "k"))
        let lease = try #require(try queue.claim())
        let later = clock.now().addingTimeInterval(600)
        try queue.snooze(lease, until: later)
        _ = try queue.compact()
        try queue.close()
        queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let job = try #require(try queue.job(id))
        #expect(job.state == .enqueued && job.attempts == 0 && job.dueAt == later && job.lastStopReason == .snoozed)
        #expect(try queue.claim() == nil, "not due before the time")
        try closeChecked(queue)
        temp.cleanup()
    }
}
