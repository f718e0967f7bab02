import Foundation
import Testing

@testable import Spool

/// The runner records why each attempt ended, and gives back the attempts the app or the system interrupts.
@Suite struct RunnerStopReasonTests {
    /// Registers kind "held": a handler that reaches "running" and waits until cancelled.
    private func registerHeld(_ fixture: RuntimeFixture, _ checkpoints: Checkpoints) throws {
        try fixture.runner.register(kind: "held") { _, _ in
            checkpoints.reach("running")
            try await Gate().wait()
        }
    }

    @Test func aTimeoutIsRecordedAsTimedOutAndSpendsTheAttempt() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "held", options: .init(timeout: 10)) { _, _ in
            checkpoints.reach("running")
            try await Gate().wait()
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "held"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        fixture.clock.advance(by: 10)
        await fixture.events.wait { $0.contains(where: \.isFailure) }
        let job = try fixture.job(id)
        #expect(job.lastStopReason == .timedOut && job.attempts == 1 && job.lastError == "timed out after 10 s")
        try await fixture.tearDown()
    }

    @Test func expiringGivesTheRunningAttemptsBack() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        let seen = Locked<JobContext.CancellationReason?>(nil)
        try fixture.runner.register(kind: "held") { _, context in
            checkpoints.reach("running")
            do { try await Gate().wait() } catch {
                seen.withLock { $0 = context.cancellationReason }
                throw error
            }
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "held", maxAttempts: 1))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        await fixture.runner.expire()
        #expect(!fixture.runner.isRunning)
        let job = try fixture.job(id)
        #expect(job.state == .enqueued && job.attempts == 0, "given back: the one attempt is not spent")
        #expect(job.lastStopReason == .systemTimeExpired && job.lastError == nil)
        #expect(seen.withLock { $0 } == .systemTimeExpired)
        #expect(fixture.events.all.contains(.released(id, .systemTimeExpired)))
        // The next launch runs it again.
        try fixture.runner.register(kind: "held") { _, _ in }
        fixture.runner.start()
        await fixture.events.wait { $0.contains(.succeeded(id)) }
        try await fixture.tearDown()
    }

    @Test func stoppingWithReleaseGivesBackWhileCancelRunningCounts() async throws {
        let fixture = try RuntimeFixture(options: .init(maxConcurrentJobs: 1))
        let checkpoints = Checkpoints()
        try registerHeld(fixture, checkpoints)
        let released = try await fixture.queue.enqueue(NewJob(kind: "held"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        await fixture.runner.stop(.releaseRunning)
        var job = try fixture.job(released)
        #expect(job.state == .enqueued && job.attempts == 0 && job.lastStopReason == .runnerStopped)

        fixture.runner.start()
        await checkpoints.wait(for: "running", count: 2)
        await fixture.runner.stop(.cancelRunning)
        job = try fixture.job(released)
        #expect(job.attempts == 1 && job.lastStopReason == .runnerStopped, "counted, as before")
        #expect(job.lastError?.hasPrefix("stopped: the runner was stopped while the job ran") == true)
        try await fixture.tearDown()
    }

    @Test func aConstraintThatStopsHoldingReleasesTheAttempt() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        let seen = Locked<JobContext.CancellationReason?>(nil)
        try fixture.runner.register(kind: "upload") { _, context in
            checkpoints.reach("running")
            do { try await Gate().wait() } catch {
                seen.withLock { $0 = context.cancellationReason }
                throw error
            }
        }
        try fixture.queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true))
        let id = try await fixture.queue.enqueue(
            NewJob(kind: "upload", constraints: JobConstraints(requiresNetwork: true)))
        let unconstrained = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await checkpoints.wait(for: "running", count: 2)
        try fixture.queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: false))
        await fixture.events.wait { $0.contains(.released(id, .constraintsUnmet)) }
        let job = try fixture.job(id)
        #expect(job.state == .enqueued && job.attempts == 0 && job.lastStopReason == .constraintsUnmet)
        #expect(try fixture.job(unconstrained).state == .running, "a job without constraints runs on")
        // The cancelled handler's error arrives after the release and is discarded.
        await fixture.events.wait { $0.contains(.discarded(id)) }
        #expect(seen.withLock { $0 } == .constraintsUnmet)
        try await fixture.tearDown()
    }
}
