import Foundation
import Testing
@_spi(RunnerEvents) @testable import Spool

/// Defects found reviewing the runner, each pinned by the scenario that showed it.
@Suite struct RuntimeReviewTests {
    /// A job left running under a lease the runner does not hold — another process's claim kept at
    /// open by `runningJobsAtOpen = .keepUnexpiredLeases`, or a manual `claim` — can only come back by
    /// a claim after that lease expires. The runner must wake then: nothing else will (no record
    /// changes at the expiry), so an idle runner slept with no deadline and the job stayed `running`.
    @Test func aRunnerWakesWhenAForeignLeaseExpiresAndRunsTheReclaimedJob() async throws {
        let clock = ManualClock()
        let temp = TemporaryDirectory("spool-runtime")
        var configuration = testConfiguration(clock: clock)
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        // A process claims the job, then ends without completing it.
        let first = try JobQueue(directory: temp.queue, configuration: configuration)
        let id = try await first.enqueue(NewJob(kind: "work"))
        let lease = try #require(try await first.claim(kind: "work", leaseDuration: 60))
        try first.close()

        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.job(id)?.state == .running, "kept at open: its lease has not expired")
        let events = RunnerEvents()
        let runner = JobRunner(queue: queue, options: .init(), events: events)
        runner.register(kind: "work") { _, _ in }
        runner.start()
        await events.wait { $0.contains { if case .waiting = $0 { return true } else { return false } } }
        let firstWait = events.all.first { if case .waiting = $0 { return true } else { return false } }
        #expect(firstWait == .waiting(until: lease.expiresAt), "the runner sleeps until the foreign lease expires")
        if firstWait == .waiting(until: lease.expiresAt) {
            clock.advance(to: lease.expiresAt)
            // The claim at the expiry reclaims the job, back with its retry deadline; the runner sleeps until it.
            await events.wait { events in
                events.contains { if case .waiting(let until?) = $0 { return until > lease.expiresAt } else { return false } }
            }
            let retryAt = try #require(try queue.job(id)?.nextRetryAt)
            #expect(try queue.job(id)?.state == .enqueued)
            clock.advance(to: retryAt)
            await events.wait { $0.contains(.succeeded(id)) }
            #expect(try queue.job(id)?.state == .succeeded && queue.job(id)?.attempts == 2)
        }
        await runner.stop(.cancelRunning)
        try queue.close()
        temp.cleanup()
    }

    /// A handler extends its lease by hand before a long step (600 s, the runner's lease being 60 s).
    /// The runner's next renewal, at half the extended lease, renewed for its own 60 s only: the lease
    /// went from 300 s left to 60 s left — a renewal that shortened the lease the handler asked for.
    @Test func anAutomaticRenewalNeverShortensALeaseExtendedByHand() async throws {
        let fixture = try RuntimeFixture(options: .init(leaseDuration: 60))
        let gate = Gate()
        let checkpoints = Checkpoints()
        fixture.runner.register(kind: "long") { _, context in
            try await context.renewLease(for: 600)
            checkpoints.reach("renewed")
            try await gate.wait()
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "long"))
        let start = fixture.clock.now()
        fixture.runner.start()
        await checkpoints.wait(for: "renewed")
        await fixture.events.wait { $0.last == .waiting(until: start.addingTimeInterval(300)) }
        await waitForSleep(fixture.clock, until: [start.addingTimeInterval(300)])
        fixture.clock.advance(to: start.addingTimeInterval(300))
        // The loop's renewal (the handler's own was the first `.renewed`).
        await fixture.events.wait(for: 2) { $0.isRenewal }
        let expiry = try #require(try fixture.job(id).leaseExpiresAt)
        #expect(expiry >= start.addingTimeInterval(600), "the lease was cut to \(expiry.timeIntervalSince(start)) s from the start")
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

    /// README: replacing a running job's unique key cancels its handler like `cancel` does (checked: it holds).
    @Test func replacingARunningJobsUniqueKeyCancelsItsHandler() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        fixture.runner.register(kind: "upload") { _, _ in
            checkpoints.reach("running")
            try await Gate().wait()
        }
        let running = try await fixture.queue.enqueue(NewJob(kind: "upload", uniqueKey: "u"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        _ = try await fixture.queue.enqueue(NewJob(kind: "other", uniqueKey: "u", uniquePolicy: .replace))
        await fixture.events.wait { $0.contains(.discarded(running)) }
        #expect(fixture.events.all.contains(.cancelledHandler(running, .jobCancelled)))
        #expect(try fixture.job(running).state == .cancelled)
        try await fixture.tearDown()
    }
}
