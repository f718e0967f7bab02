import Foundation
import Testing

@testable import Spool

/// The runner meeting a change it did not make: a lease it does not hold expiring, a running job's
/// unique key replaced by an enqueue.
@Suite struct RunnerOutsideChangeTests {
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
        try closeChecked(first)

        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.job(id)?.state == .running, "kept at open: its lease has not expired")
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, options: .init(), events: events)
        try runner.register(kind: "work") { _, _ in }
        runner.start()
        await events.wait { $0.contains { if case .waiting = $0 { return true } else { return false } } }
        let firstWait = events.all.first { if case .waiting = $0 { return true } else { return false } }
        #expect(firstWait == .waiting(until: lease.expiresAt), "the runner sleeps until the foreign lease expires")
        if firstWait == .waiting(until: lease.expiresAt) {
            clock.advance(to: lease.expiresAt)
            // The claim at the expiry reclaims the job, back with its retry deadline; the runner sleeps until it.
            await events.wait { events in
                events.contains {
                    if case .waiting(let until?) = $0 { return until > lease.expiresAt } else { return false }
                }
            }
            let retryAt = try #require(try queue.job(id)?.nextRetryAt)
            #expect(try queue.job(id)?.state == .enqueued)
            clock.advance(to: retryAt)
            await events.wait { $0.contains(.succeeded(id)) }
            #expect(try queue.job(id)?.state == .succeeded && queue.job(id)?.attempts == 2)
        }
        await runner.stop(.cancelRunning)
        try closeChecked(queue)
        temp.cleanup()
    }

    /// README: replacing a running job's unique key cancels its handler like `cancel` does (checked: it holds).
    @Test func replacingARunningJobsUniqueKeyCancelsItsHandler() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "upload") { _, _ in
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
