import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// An app's lifecycle (issue #34 items 1, 2 and 5): leaving the foreground gives attempts back and the
/// return resumes them; the runner says when it is idle; events name a job's final state and a park.
@Suite struct RunnerLifecycleTests {
    /// Four app switches during a long upload, on a budget of four attempts: with `suspend()` and
    /// `resume()` none is spent, and the upload ends succeeded. (The recipe before this issue stopped
    /// with `.cancelRunning`, which records a failure each time: the fourth switch failed the job for good.)
    @Test func appSwitchesDuringAnUploadSpendNoAttempt() async throws {
        let fixture = try RuntimeFixture(retryPolicy: .table([1], maxAttempts: 4))
        let gate = Gate()
        try fixture.runner.register(kind: "upload") { _, _ in try await gate.wait() }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        for switchNumber in 1...4 {
            try await fixture.events.wait(for: switchNumber, timeout: hangGuard) { $0 == .claimed(id, attempt: 1) }
            await fixture.runner.suspend()
            let job = try fixture.job(id)
            #expect(job.state == .enqueued && job.attempts == 0 && job.lastStopReason == .runnerStopped)
            #expect(job.nextRetryAt == nil)
            fixture.runner.resume()
        }
        try await fixture.events.wait(for: 5, timeout: hangGuard) { $0 == .claimed(id, attempt: 1) }
        gate.open()
        try await fixture.events.wait(for: .finished(id, .succeeded), timeout: hangGuard)
        #expect(try fixture.job(id).state == .succeeded)
        #expect(!fixture.events.all.contains { $0.isFailure })
        try await fixture.tearDown()
    }

    /// The recipe before: `stop(.cancelRunning)` on leaving the foreground records a failure each time.
    @Test func stoppingWithCancelSpendsAnAttemptPerSwitch() async throws {
        let fixture = try RuntimeFixture(retryPolicy: .table([0], maxAttempts: 2))
        try fixture.runner.register(kind: "upload") { _, _ in try await Gate().wait() }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        for switchNumber in 1...2 {
            fixture.runner.start()
            try await fixture.events.wait(for: .claimed(id, attempt: switchNumber), timeout: hangGuard)
            await fixture.runner.stop(.cancelRunning)
        }
        #expect(try fixture.job(id).state == .failed && fixture.job(id).attempts == 2)
        try await fixture.tearDown()
    }

    @Test func aParkedJobStaysParkedThroughASuspend() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "upload") { _, context in
            try await context.park(key: "transfer-1", for: 3600)
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await fixture.waitForEvent(after: 0) { $0 == .parked(id, key: "transfer-1") }
        await fixture.runner.suspend()
        #expect(try fixture.job(id).parkedKey == "transfer-1" && fixture.job(id).attempts == 1)
        try await fixture.tearDown()
    }

    /// A launch's runner is idle once what was due ran: parked work, work waiting for a condition and
    /// work due later do not keep it busy; a job enqueued before the call is run before it returns.
    @Test func idleReturnsOnceNothingOfTheRunnersKindsRunsOrIsDue() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "upload") { _, context in
            if context.id == "parks" { try await context.park(key: "t", for: 3600) }
        }
        _ = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "parks"))
        _ = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "now"))
        _ = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "later", delay: 600))
        _ = try await fixture.queue.enqueue(
            NewJob(kind: "upload", id: "wifi", constraints: JobConstraints(requiredConditions: ["wifi"])))
        _ = try await fixture.queue.enqueue(NewJob(kind: "other", id: "unhandled"))
        fixture.runner.start()
        await fixture.runner.idle()
        #expect(try fixture.job("now").state == .succeeded)
        #expect(try fixture.job("parks").parkedKey == "t")
        #expect(try fixture.job("later").state == .enqueued && fixture.job("wifi").state == .enqueued)
        #expect(fixture.events.all.contains(.idle))
        // Enqueued after the runner went idle, before the call: run before it returns.
        let next = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "next"))
        await fixture.runner.idle()
        #expect(try fixture.job(next).state == .succeeded)
        // Due later: the clock reaches it, and the runner is busy again until it ran.
        fixture.clock.advance(by: 600)
        await fixture.waitForEvent(after: 0) { $0 == .finished("later", .succeeded) }
        await fixture.runner.idle()
        try await fixture.tearDown()
    }

    @Test func idleWaitsForARunningHandlerAndReturnsForAStoppedRunner() async throws {
        let fixture = try RuntimeFixture()
        await fixture.runner.idle()  // not started: at once
        let gate = Gate()
        try fixture.runner.register(kind: "upload") { _, _ in try await gate.wait() }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await fixture.waitForEvent(after: 0) { $0 == .claimed(id, attempt: 1) }
        let idle = Task { await fixture.runner.idle() }
        // Still running: not idle. Synchronise on the loop having looked while the handler runs.
        let looked = fixture.eventCount
        fixture.runner.resume()  // started already: nothing, but the loop looks again
        await fixture.waitForIdle(after: looked)
        #expect(!fixture.events.all.contains(.idle))
        gate.open()
        await idle.value
        #expect(try fixture.job(id).state == .succeeded)
        // A runner that stops ends the wait of a caller whose runner will never be idle by itself.
        let blocker = Gate()
        try fixture.runner.register(kind: "upload") { _, _ in try await blocker.wait() }
        _ = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "long"))
        await fixture.waitForEvent(after: 0) { $0 == .claimed("long", attempt: 1) }
        let waiting = Task { await fixture.runner.idle() }
        await fixture.runner.expire()
        await waiting.value
        #expect(try fixture.job("long").state == .enqueued)
        try await fixture.tearDown()
    }

    /// A job whose attempts ran out, without any terminal error, has an event naming its end; so does
    /// a terminal failure, a success and a cancel of a running job.
    @Test func finalStatesAreEvents() async throws {
        let fixture = try RuntimeFixture(retryPolicy: .table([1], maxAttempts: 2))
        let gate = Gate()
        try fixture.runner.register(kind: "flaky") { _, _ in throw URLError(.timedOut) }
        try fixture.runner.register(kind: "broken") { _, _ in throw TerminalJobFailure("bad") }
        try fixture.runner.register(kind: "ok") { _, _ in }
        try fixture.runner.register(kind: "slow") { _, _ in try await gate.wait() }
        let flaky = try await fixture.queue.enqueue(NewJob(kind: "flaky"))
        let broken = try await fixture.queue.enqueue(NewJob(kind: "broken"))
        let ok = try await fixture.queue.enqueue(NewJob(kind: "ok"))
        let slow = try await fixture.queue.enqueue(NewJob(kind: "slow"))
        fixture.runner.start()
        try await fixture.events.wait(for: .claimed(slow, attempt: 1), timeout: hangGuard)
        _ = try await fixture.queue.cancel(slow)
        try await fixture.events.wait(for: .finished(slow, .cancelled), timeout: hangGuard)
        try await fixture.events.wait(for: .finished(broken, .failed), timeout: hangGuard)
        try await fixture.events.wait(for: .finished(ok, .succeeded), timeout: hangGuard)
        // The first failure retries: no final event; the second uses the budget up.
        try await fixture.events.wait(for: .claimed(flaky, attempt: 1), timeout: hangGuard)
        await fixture.runner.idle()
        #expect(!fixture.events.all.contains { if case .finished(flaky, _) = $0 { true } else { false } })
        fixture.clock.advance(by: 10)
        try await fixture.events.wait(for: .finished(flaky, .failed), timeout: hangGuard)
        let failures = fixture.events.all.filter {
            if case .failed(flaky, _, let terminal) = $0 { !terminal } else { false }
        }
        #expect(failures.count == 2)
        try await fixture.tearDown()
    }
}
