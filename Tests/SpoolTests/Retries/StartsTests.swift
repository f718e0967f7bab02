import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Attempts spent against the budget and times started (``Job/attempts``, ``Job/starts``; FORMAT.md,
/// *Retry policies and starts*).
@Suite(.blocking) struct StartsTests {
    @Test func aGivenBackAttemptIsNotSpentButItsStartCounts() throws {
        let temporary = TemporaryDirectory("starts")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration(clock: clock))
        let id = try queue.enqueue(NewJob(kind: "upload", maxAttempts: 2))
        try queue.release(try #require(try queue.claim()), reason: .systemTimeExpired)
        try queue.snooze(try #require(try queue.claim()), until: clock.now().addingTimeInterval(1))
        clock.advance(by: 1)
        let third = try #require(try queue.claim())
        #expect(third.attempt == 1 && third.job.starts == 3)
        try queue.fail(third, error: "offline")
        #expect(try queue.job(id)?.attempts == 1 && queue.job(id)?.starts == 3)
        // Kept by a restart, and by a compaction (a `starts` after the restore) and the restart after it.
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration(clock: clock))
        #expect(try queue.job(id)?.starts == 3)
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration(clock: clock))
        #expect(try queue.job(id)?.attempts == 1 && queue.job(id)?.starts == 3)
        // A manual retry starts a new run.
        clock.advance(by: 60)
        try queue.fail(try #require(try queue.claim()), error: "offline")
        #expect(try queue.job(id)?.state == .failed && queue.job(id)?.starts == 4)
        try queue.retry(id)
        #expect(try queue.job(id)?.attempts == 0 && queue.job(id)?.starts == 0)
        try closeChecked(queue)
    }

    /// A handler resumed after the app came back sees its attempt unspent and its earlier start.
    @Test(.onThePool) func aResumedHandlerSeesItsEarlierStart() async throws {
        let fixture = try RuntimeFixture()
        let seen = Locked<[String]>([])
        let gate = Gate()
        try fixture.runner.register(kind: "upload") { _, context in
            seen.withLock { $0.append("attempt \(context.attempt) starts \(context.starts)") }
            if context.starts == 1 { try await gate.wait() }
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        try await fixture.events.wait(for: .claimed(id, attempt: 1), timeout: hangGuard)
        await fixture.runner.suspend()
        fixture.runner.resume()
        try await fixture.events.wait(for: .finished(id, .succeeded), timeout: hangGuard)
        #expect(seen.withLock { $0 } == ["attempt 1 starts 1", "attempt 1 starts 2"])
        #expect(try fixture.job(id).attempts == 1 && fixture.job(id).starts == 2)
        try await fixture.tearDown()
    }

    @Test func startsBelowAttemptsDoNotApply() throws {
        var state = QueueState()
        try state.apply(
            .enqueue(
                .init(
                    id: "j", kind: "k", payload: PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0),
                    priority: 0, createdAt: 0, runAt: 0, maxAttempts: 3, uniqueKey: nil)))
        try state.apply(
            .claim(.init(id: "j", token: 1, claimedAt: 0, expiresAt: 10, monotonicExpiry: 0, bootID: "b")))
        #expect(throws: Refusal.startsBelowAttempts(id: "j", starts: 0, attempts: 1)) {
            try state.apply(.starts(id: "j", count: 0))
        }
        try state.apply(.starts(id: "j", count: 4))
        #expect(state.jobs["j"]?.starts == 4)
    }
}
