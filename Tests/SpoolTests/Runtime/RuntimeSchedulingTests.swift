import Foundation
import Testing

@testable import Spool

/// When the runtime runs things: at each deadline exactly, never before, renewing leases
/// and timing attempts out on the injected clock, and otherwise only when the queue changes.
@Suite struct RuntimeSchedulingTests {
    @Test func aFailingJobMovesThroughTheBackoffTableAndNeverRunsEarly() async throws {
        let fixture = try RuntimeFixture(retryPolicy: .table([5, 15, 45], maxAttempts: 4))
        let attempts = Locked<[Int]>([])
        try fixture.runner.register(kind: "sync") { _, context in
            attempts.withLock { $0.append(context.attempt) }
            throw CocoaLikeError("server unreachable")
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "sync"))
        fixture.runner.start()
        for (index, delay) in [5.0, 15, 45].enumerated() {
            await fixture.events.wait(for: index + 1) { $0.isFailure }
            let failedAt = fixture.clock.now()
            let job = try fixture.job(id)
            let deadline = try #require(job.nextRetryAt)
            #expect(deadline == failedAt.addingTimeInterval(delay), "attempt \(index + 1) waits \(delay) s")
            // The runner sleeps until exactly that deadline.
            await fixture.events.wait { $0.last == .waiting(until: deadline) }
            await waitForSleep(fixture.clock, until: [deadline])
            // A moment before it, with the runner made to look again (an unrelated change), nothing runs.
            fixture.clock.advance(to: deadline.addingTimeInterval(-0.001))
            let before = fixture.eventCount
            try await fixture.queue.enqueue(NewJob(kind: "unrelated-\(index)"))
            await fixture.waitForIdle(after: before)
            #expect(try fixture.job(id).attempts == index + 1, "not run before its deadline")
            let claimedMeanwhile = fixture.events.all.dropFirst(before).contains { $0.isClaim }
            #expect(!claimedMeanwhile)
            // At the deadline it runs.
            fixture.clock.advance(to: deadline)
            await fixture.events.wait(for: index + 2) { $0.isClaim }
        }
        await fixture.events.wait(for: 4) { $0.isFailure }
        let job = try fixture.job(id)
        #expect(job.state == .failed && job.isFailed && job.attempts == 4)
        #expect(attempts.withLock { $0 } == [1, 2, 3, 4])
        try await fixture.tearDown()
    }

    @Test func theLeaseIsRenewedWhileALongHandlerRunsSoTheJobIsNotReclaimed() async throws {
        let fixture = try RuntimeFixture(options: .init(leaseDuration: 60))
        let gate = Gate()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "long") { _, _ in
            checkpoints.reach("running")
            try await gate.wait()
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "long"))
        let start = fixture.clock.now()
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        // The runner's next wake-up is the renewal, at half the lease.
        await fixture.events.wait { $0.last == .waiting(until: start.addingTimeInterval(30)) }
        let token = try #require(try fixture.queue.engine.job(id)?.lease?.token)
        for round in 1...4 {
            // 45 s per round: 180 s in all, three times the lease.
            fixture.clock.advance(by: 45)
            await fixture.events.wait(for: round) { $0.isRenewal }
            let job = try fixture.job(id)
            #expect(job.state == .running && job.attempts == 1)
            #expect(job.leaseExpiresAt == fixture.clock.now().addingTimeInterval(60))
            // Anyone else's reclaim finds nothing to reclaim.
            #expect(try await fixture.queue.reclaimExpiredLeases().isEmpty)
            #expect(try fixture.queue.engine.job(id)?.lease?.token == token, "the same lease, never reclaimed")
        }
        gate.open()
        await fixture.events.wait { $0 == .succeeded(id) }
        #expect(try fixture.job(id).attempts == 1)
        try await fixture.tearDown()
    }

    @Test func anAttemptPastItsKindsTimeoutIsCancelledAndRecordedAsRetryable() async throws {
        let fixture = try RuntimeFixture()
        let observed = Locked<JobContext.CancellationReason?>(nil)
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "slow", options: .init(timeout: 10)) { _, context in
            checkpoints.reach("running")
            do {
                try await Gate().wait()  // never opened
            } catch {
                observed.withLock { $0 = context.cancellationReason }
                throw error
            }
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "slow"))
        let start = fixture.clock.now()
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        await fixture.events.wait { $0.last == .waiting(until: start.addingTimeInterval(10)) }
        fixture.clock.advance(by: 9.999)
        #expect(try fixture.job(id).state == .running)
        fixture.clock.advance(by: 0.001)
        await fixture.events.wait { $0.isFailure }
        await fixture.events.wait { $0 == .discarded(id) }
        let job = try fixture.job(id)
        #expect(job.state == .enqueued && job.attempts == 1)
        #expect(job.lastError == "timed out after 10 s")
        #expect(job.nextRetryAt == fixture.clock.now().addingTimeInterval(5))
        #expect(observed.withLock { $0 } == .timedOut, "the handler saw why it was cancelled")
        #expect(fixture.events.all.contains(.failed(id, error: "timed out after 10 s", terminal: false)))
        try await fixture.tearDown()
    }

    @Test func theRunnerWakesOnEnqueueAndOtherwiseDoesNothing() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "ping") { _, _ in }
        fixture.runner.start()
        // Idle: no deadline, so no timer at all.
        await fixture.events.wait { $0.last == .waiting(until: nil) }
        #expect(fixture.clock.sleepingDeadlines.isEmpty)
        let idle = fixture.runner.statistics
        for _ in 0..<200 { await Task.yield() }
        #expect(fixture.runner.statistics == idle, "an idle runner makes no pass at all")
        // An enqueue wakes it; it runs the job and is idle again after a handful of passes.
        let before = fixture.eventCount
        let id = try await fixture.queue.enqueue(NewJob(kind: "ping"))
        await fixture.events.wait { $0 == .succeeded(id) }
        await fixture.events.wait { $0.dropFirst(before).last == .waiting(until: nil) }
        let busy = fixture.runner.statistics
        // Each pass has a cause — the enqueue, the claim's record, the completion's record, the freed
        // slot (coalesced when they come together) — and claims until a claim finds nothing.
        let passes = busy.passes - idle.passes
        let claims = busy.claimAttempts - idle.claimAttempts
        #expect((1...4).contains(passes), "\(passes) passes for one job")
        #expect(
            claims == passes + 1,
            "\(claims) claims in \(passes) passes: one empty claim per pass, one that took the job")
        // A delayed job: the runner sleeps until its due time exactly, then runs it.
        let due = fixture.clock.now().addingTimeInterval(3600)
        let later = try await fixture.queue.enqueue(NewJob(kind: "ping", runAt: due))
        await fixture.events.wait { $0.last == .waiting(until: due) }
        await waitForSleep(fixture.clock, until: [due])
        let waiting = fixture.runner.statistics
        for _ in 0..<200 { await Task.yield() }
        #expect(fixture.runner.statistics == waiting, "no pass while it sleeps")
        fixture.clock.advance(to: due)
        await fixture.events.wait { $0 == .succeeded(later) }
        try await fixture.tearDown()
    }

    @Test func aChangeOfEnvironmentMakesTheRunnerLookAgain() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "ping") { _, _ in }
        fixture.runner.start()
        await fixture.events.wait { $0.last == .waiting(until: nil) }
        let idle = fixture.runner.statistics
        let before = fixture.eventCount
        // What `updateDeviceConditions` publishes: no job changed, but what may run might have.
        fixture.queue.engine.changes.publishEnvironmentChange()
        await fixture.waitForIdle(after: before)
        #expect(fixture.runner.statistics.claimAttempts == idle.claimAttempts + 1, "one pass, one claim")
        try await fixture.tearDown()
    }

    @Test func aHandlerExtendsItsLeaseByHandAndTheRunnerRenewsFromThere() async throws {
        let fixture = try RuntimeFixture(options: .init(leaseDuration: 60))
        let gate = Gate()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "long") { _, context in
            try await context.renewLease(for: 600)
            checkpoints.reach("renewed")
            try await gate.wait()
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "long"))
        let start = fixture.clock.now()
        fixture.runner.start()
        await checkpoints.wait(for: "renewed")
        #expect(try fixture.job(id).leaseExpiresAt == start.addingTimeInterval(600))
        // The next automatic renewal is at half the extended lease.
        await fixture.events.wait { $0.last == .waiting(until: start.addingTimeInterval(300)) }
        await waitForSleep(fixture.clock, until: [start.addingTimeInterval(300)])
        fixture.clock.advance(to: start.addingTimeInterval(300))
        // That renewal (the handler's own was the first `.renewed`) never shortens what is left: it
        // renewed for its own 60 s once, cutting 300 s left to 60.
        await fixture.events.wait(for: 2) { $0.isRenewal }
        // The pass that renewed runs to its end before the clock moves again: a claim of a pass still
        // running when the clock jumps past the lease would reclaim it before any renewal looked at it.
        let renewedAt = (fixture.events.all.lastIndex { $0.isRenewal } ?? 0) + 1
        await fixture.waitForIdle(after: renewedAt)
        let expiry = try #require(try fixture.job(id).leaseExpiresAt)
        #expect(
            expiry >= start.addingTimeInterval(600),
            "the lease was cut to \(expiry.timeIntervalSince(start)) s from the start")
        // Back at the runner's own cadence once less than its lease is left: renewed, never reclaimed.
        let before = fixture.eventCount
        fixture.clock.advance(to: start.addingTimeInterval(900))
        await fixture.waitForIdle(after: before)
        #expect(try fixture.job(id).state == .running)
        #expect(try fixture.job(id).leaseExpiresAt! > fixture.clock.now())
        gate.open()
        await fixture.events.wait { $0 == .succeeded(id) }
        try await fixture.tearDown()
    }

    @Test func aWallClockJumpForwardRunsWhatBecameDue() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "ping") { _, _ in }
        let id = try await fixture.queue.enqueue(NewJob(kind: "ping", delay: 600))
        fixture.runner.start()
        await fixture.events.wait { $0.last == .waiting(until: fixture.clock.now().addingTimeInterval(600)) }
        fixture.clock.setWallClock(fixture.clock.now().addingTimeInterval(-3600))
        #expect(try fixture.job(id).state == .enqueued)
        fixture.clock.setWallClock(fixture.clock.now().addingTimeInterval(3600 + 601))
        await fixture.events.wait { $0 == .succeeded(id) }
        try await fixture.tearDown()
    }
}

/// An error whose description is its message.
struct CocoaLikeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
