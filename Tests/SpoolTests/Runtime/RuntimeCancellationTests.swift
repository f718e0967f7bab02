import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Cancelling a running job, and stopping the runner: handlers are cancelled or finish as
/// asked, and every attempt ends recorded once, or — for a cancelled job — not at all.
@Suite struct RuntimeCancellationTests {
    @Test func cancellingARunningJobCancelsItsHandlerAndDiscardsItsLateResult() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        let observed = Locked<JobContext.CancellationReason?>(nil)
        try fixture.runner.register(kind: "upload") { _, context in
            checkpoints.reach("running")
            do {
                try await Gate().wait()  // only cancellation ends it
            } catch {
                #expect(error is CancellationError && Task.isCancelled && context.isCancelled)
                observed.withLock { $0 = context.cancellationReason }
            }
            // A late success, after the cancel: it must be discarded.
            checkpoints.reach("returning")
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        let cancelled = try await fixture.queue.cancel(id)
        #expect(cancelled.state == .cancelled)
        await checkpoints.wait(for: "returning")
        await fixture.events.wait { $0 == .discarded(id) }
        // The loop records the job's final state when it notices the cancel; the handler's end races it.
        try await fixture.events.wait(for: .finished(id, .cancelled), timeout: hangGuard)
        #expect(observed.withLock { $0 } == .jobCancelled)
        let job = try fixture.job(id)
        #expect(job.state == .cancelled && job.attempts == 1 && job.lastError == nil)
        let events = fixture.events.all.filter { $0.jobID == id && $0 != .finished(id, .cancelled) }
        #expect(
            events == [.claimed(id, attempt: 1), .cancelledHandler(id, .jobCancelled), .discarded(id)],
            "nothing recorded for the cancelled job")
        // The slot is free again: the next job runs.
        try fixture.runner.register(kind: "next") { _, _ in }
        let next = try await fixture.queue.enqueue(NewJob(kind: "next"))
        await fixture.events.wait { $0 == .succeeded(next) }
        await fixture.runner.stop()
        try closeChecked(fixture.queue)
        let reopened = try JobQueue(
            directory: fixture.temp.queue, configuration: testConfiguration(clock: fixture.clock))
        #expect(try reopened.job(id)?.state == .cancelled, "durably")
        try closeChecked(reopened)
        fixture.temp.cleanup()
    }

    @Test func deletingARunningJobCancelsItsHandlerToo() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "upload") { _, _ in
            checkpoints.reach("running")
            try await Gate().wait()
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        try await fixture.queue.delete(id)
        await fixture.events.wait { $0 == .discarded(id) }
        #expect(fixture.events.all.contains(.cancelledHandler(id, .jobCancelled)))
        #expect(try fixture.queue.job(id) == nil)
        try await fixture.tearDown()
    }

    @Test func stoppingByFinishingLetsRunningHandlersCompleteAndClaimsNothingMore() async throws {
        let fixture = try RuntimeFixture(options: .init(maxConcurrentJobs: 1))
        let checkpoints = Checkpoints()
        let gate = Gate()
        let finished = Locked(false)
        try fixture.runner.register(kind: "work") { _, context in
            checkpoints.reach("running")
            try await gate.wait()
            #expect(!context.isCancelled)
            finished.withLock { $0 = true }
        }
        let first = try await fixture.queue.enqueue(NewJob(kind: "work"))
        let second = try await fixture.queue.enqueue(NewJob(kind: "work"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        await fixture.waitForIdle(after: 0)
        let before = fixture.eventCount
        let stopping = Task { await fixture.runner.stop(.finishRunning) }
        await fixture.waitForIdle(after: before)  // the loop saw the stop
        #expect(fixture.runner.isRunning)
        gate.open()
        await stopping.value
        #expect(finished.withLock { $0 }, "the handler finished before stop returned")
        #expect(!fixture.runner.isRunning)
        #expect(fixture.events.all.last == .stopped)
        #expect(try fixture.job(first).state == .succeeded)
        #expect(try fixture.job(second).state == .enqueued && fixture.job(second).attempts == 0, "not claimed")
        try closeChecked(fixture.queue)
        fixture.temp.cleanup()
    }

    @Test func stoppingByCancellingRecordsInterruptedAttemptsAsRetryableAndKeepsFinishedOnes() async throws {
        let fixture = try RuntimeFixture(options: .init(maxConcurrentJobs: 2))
        let checkpoints = Checkpoints()
        let ended = Locked(0)
        try fixture.runner.register(kind: "interrupted") { _, context in
            defer { ended.withLock { $0 += 1 } }
            checkpoints.reach("running")
            do {
                try await Gate().wait()
            } catch {
                #expect(context.cancellationReason == .runnerStopped)
                throw error
            }
        }
        try fixture.runner.register(kind: "stubborn") { _, _ in
            defer { ended.withLock { $0 += 1 } }
            checkpoints.reach("running")
            try? await Gate().wait()  // ignores the cancellation and succeeds
        }
        let interrupted = try await fixture.queue.enqueue(NewJob(kind: "interrupted"))
        let stubborn = try await fixture.queue.enqueue(NewJob(kind: "stubborn"))
        let start = fixture.clock.now()
        fixture.runner.start()
        await checkpoints.wait(for: "running", count: 2)
        await fixture.runner.stop(.cancelRunning)
        #expect(ended.withLock { $0 } == 2, "every handler task ended before stop returned")
        #expect(!fixture.runner.isRunning && fixture.events.all.last == .stopped)
        let job = try fixture.job(interrupted)
        #expect(job.state == .enqueued && job.attempts == 1, "back per the lease rules, never left running")
        #expect(job.lastError == "stopped: the runner was stopped while the job ran (CancellationError())")
        #expect(job.nextRetryAt == start.addingTimeInterval(5))
        #expect(try fixture.job(stubborn).state == .succeeded, "a handler that still succeeded is recorded")
        // Started again, the runner takes the job back at its retry deadline.
        try fixture.runner.register(kind: "interrupted") { _, _ in }
        fixture.runner.start()
        fixture.clock.advance(by: 5)
        await fixture.events.wait { $0 == .succeeded(interrupted) }
        try await fixture.tearDown()
    }

    @Test func closingTheQueueStopsTheRunner() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "ping") { _, _ in }
        fixture.runner.start()
        await fixture.waitForIdle(after: 0)
        try closeChecked(fixture.queue)
        await fixture.events.wait { $0 == .stopped }
        #expect(!fixture.runner.isRunning)
        #expect(fixture.runner.failure?.code == .closed)
        await fixture.runner.stop()
        fixture.temp.cleanup()
    }
}
