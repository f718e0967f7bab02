import Foundation
import Testing

@testable import Spool

/// The runner's loop at the moment another change lands: a running job deleted as its handler
/// returns, a stop asked while the loop's claim is in flight.
@Suite struct RunnerRaceTests {
    /// The app deletes a running job (`JobQueue.delete` allows it, and the runner is meant to
    /// discard the handler's result, see `deletingARunningJobCancelsItsHandlerToo`) just as its
    /// handler returns, before the loop has looked at the change. The late result must be discarded
    /// as for a cancel (`complete` of the deleted job's lease throws `leaseLost`); before, `JobRunner.record`
    /// treated the error as the queue refusing writes: the runner stopped itself and claimed nothing more.
    ///
    /// Deterministic: a predicate of `RunnerEvents.wait` runs on the recording thread, so it holds the
    /// loop at the end of a pass while the handler's own task deletes the job and returns.
    @Test func aRunningJobDeletedAsItsHandlerReturnsDoesNotStopTheRunner() async throws {
        let fixture = try RuntimeFixture()
        let gate = Gate()
        let checkpoints = Checkpoints()
        let queue = fixture.queue
        try fixture.runner.register(kind: "upload") { _, context in
            checkpoints.reach("running")
            try await gate.wait()
            try await queue.delete(context.id)  // another part of the app deletes it as the handler ends
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        await fixture.waitForIdle(after: 0)
        let before = fixture.eventCount
        let runner = fixture.runner
        let held = Task {
            await fixture.events.wait { events in
                if events.count == before { checkpoints.reach("watching") }
                guard events.count > before, case .waiting = events.last else { return false }
                // The loop is held here, at the end of a pass. Let the handler delete its job and return.
                gate.open()
                let limit = DispatchTime.now().uptimeNanoseconds + 2_000_000_000  // a safety bound only
                while DispatchTime.now().uptimeNanoseconds < limit {
                    let settled = runner.state.withLock { state in
                        !state.executions.values.contains { $0.lease.job.id == id && !$0.isSettled }
                    }
                    if settled { break }
                    sched_yield()
                }
                return true
            }
        }
        await checkpoints.wait(for: "watching")
        try fixture.runner.register(kind: "other") { _, _ in }  // one more pass
        await held.value
        await fixture.events.wait { events in
            events.contains(.discarded(id))
                || events.contains { if case .recordFailed = $0 { return true } else { return false } }
        }
        #expect(try fixture.queue.job(id) == nil)
        #expect(
            fixture.runner.failure == nil, "the runner stopped itself: \(String(describing: fixture.runner.failure))")
        #expect(fixture.events.all.contains(.discarded(id)))
        // And it still runs jobs.
        let next = try await fixture.queue.enqueue(NewJob(kind: "other"))
        if fixture.runner.failure == nil {
            await fixture.events.wait { $0.contains(.succeeded(next)) }
        }
        try await fixture.tearDown()
    }

    /// `stop(.cancelRunning)` asked while the loop's claim is in flight (between the claim's commit
    /// and its return): the loop still starts the handler — a new side effect after the app asked
    /// to stop — then cancels it on the next pass and records "stopped", which spends the job's
    /// attempt. Now the handler does not start; the counted attempt is recorded as stopped.
    ///
    /// Deterministic: a `RunnerEvents.wait` predicate, run as the loop records `.claimed`, registers the stop.
    @Test func aStopRequestedDuringAClaimDoesNotStartTheHandler() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "upload") { _, _ in
            checkpoints.reach("entered")
            try await Gate().wait()
        }
        fixture.runner.start()
        await fixture.waitForIdle(after: 0)
        let runner = fixture.runner
        let held = Task {
            await fixture.events.wait { events in
                if !events.contains(where: \.isClaim) { checkpoints.reach("watching") }
                guard case .claimed = events.last else { return false }
                // Evaluated on the loop's thread as it records the claim, before it starts the handler:
                // exactly what `stop(.cancelRunning)` does to the state when it lands during the claim's sync.
                runner.state.withLock { state in
                    state.phase = .stopping
                    state.cancelOnStop = true
                }
                return true
            }
        }
        await checkpoints.wait(for: "watching")
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload", maxAttempts: 1))
        await held.value
        await runner.stop(.cancelRunning)
        #expect(checkpoints.count("entered") == 0, "the handler started after stop(.cancelRunning) was asked")
        // The claim counted the attempt before the stop was seen (attempts are counted before work
        // starts, durably); the attempt is recorded as stopped, nothing is left running.
        let job = try fixture.job(id)
        #expect(job.state != .running)
        #expect(
            job.lastError?.hasPrefix("stopped: the runner was stopped before the handler started") == true,
            "\(job.state): \(job.lastError ?? "")")
        try closeChecked(fixture.queue)
        fixture.temp.cleanup()
    }
}
