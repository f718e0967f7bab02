import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A handler parks its job and records checkpoints through its `JobContext`.
@Suite struct ParkingRunnerTests {
    @Test func aHandlerThatParksFreesItsSlotAndTheJobWaitsForItsKey() async throws {
        let fixture = try RuntimeFixture(options: JobRunner.Options(maxConcurrentJobs: 1))
        let deadline = fixture.clock.now().addingTimeInterval(3600)
        try fixture.runner.register(kind: "upload") { _, context in
            try await context.checkpoint(Data("started".utf8))
            // A duration on the queue's clock (the handler's context reads the queue's ManualClock).
            try await context.park(key: "task-\(context.id.rawValue)", for: 3600)
        }
        try fixture.runner.register(kind: "other") { _, _ in }
        let parked = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "up"))
        let other = try await fixture.queue.enqueue(NewJob(kind: "other", id: "o"))
        fixture.runner.start()
        // The one slot is free again: the other job runs while the upload stays parked.
        await fixture.waitForEvent(after: 0) { $0 == .succeeded(other) }
        let job = try fixture.job(parked)
        #expect(job.state == .running && job.parkedKey == "task-up" && job.attempts == 1)
        #expect(job.parkDeadline == deadline)
        #expect(job.checkpoint == Data("started".utf8))
        #expect(!fixture.events.all.contains(.discarded(parked)))
        try await fixture.queue.completeParked(key: "task-up")
        #expect(try fixture.job(parked).state == .succeeded)
        try await fixture.tearDown()
    }

    @Test func aRefusedParkLeavesTheAttemptToItsHandler() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "upload") { _, context in
            do {
                try await context.park(key: "", deadline: .distantFuture)
            } catch let error as SpoolError where error.code == .invalidArgument {
                throw TerminalJobFailure("no key")
            }
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await fixture.waitForEvent(after: 0) { if case .failed(id, _, _) = $0 { return true } else { return false } }
        #expect(try fixture.job(id).state == .failed && fixture.job(id).lastError == "no key")
        try await fixture.tearDown()
    }

    /// A transfer that finishes before its handler returns — here, inside `start` itself — finds its job
    /// parked: `start` runs once the park has returned (durable, as every `JobQueue` call is on return).
    @Test func theWorkStartsOnceTheParkIsCommittedSoAnEarlyCompletionFindsTheJobParked() async throws {
        let fixture = try RuntimeFixture()
        let seen = Locked<[String]>([])
        let queue = fixture.queue
        try fixture.runner.register(kind: "upload") { _, context in
            try await context.park(key: "t-\(context.id.rawValue)", for: 3600) {
                let job = try queue.job(context.id)
                seen.withLock { $0.append("\(job?.state.description ?? "-") \(job?.parkedKey ?? "-")") }
                // The system reports at once: the completion finds the job parked.
                try await queue.completeParked(key: "t-\(context.id.rawValue)")
            }
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "u"))
        fixture.runner.start()
        // Idle once the handler returned: the slot is free and nothing is due.
        // The limit is a guard: in the full suite, tests that block threads of Swift's cooperative pool
        // (child processes, blocking calls) can hold this test's tasks back for seconds.
        try await fixture.events.wait(for: .idle, timeout: hangGuard)
        #expect(seen.withLock { $0 } == ["running t-u"])
        let job = try fixture.job(id)
        #expect(job.state == .succeeded && job.attempts == 1 && job.parkedKey == nil)
        #expect(fixture.events.all.contains(.parked(id, key: "t-u")))
        try await fixture.tearDown()
    }

    /// Work that could not start leaves no job waiting out its deadline: it fails by the retry policy at once.
    @Test func aStartThatThrowsFailsTheParkedJobByTheRetryPolicy() async throws {
        struct NoSession: Error {}
        let fixture = try RuntimeFixture()
        let ran = Locked(0)
        try fixture.runner.register(kind: "upload") { _, context in
            try await context.park(key: "t-\(context.id.rawValue)", for: 3600) {
                ran.withLock { $0 += 1 }
                throw NoSession()
            }
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "u", maxAttempts: 3))
        fixture.runner.start()
        await fixture.waitForEvent(after: 0) { $0 == .discarded(id) }
        let job = try fixture.job(id)
        #expect(ran.withLock { $0 } == 1)
        #expect(job.state == .enqueued && job.attempts == 1 && job.parkedKey == nil)
        #expect(job.lastError?.hasPrefix("the parked work did not start") == true)
        #expect(job.nextRetryAt != nil)
        #expect(try fixture.queue.parkedJobs().isEmpty)
        try await fixture.tearDown()
    }

    /// A completion or failure by a key no job is parked under is refused and writes nothing.
    @Test func aCompletionForAKeyNotParkedYetIsRefusedAndWritesNothing() async throws {
        let fixture = try RuntimeFixture()
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "u"))
        let before = fixture.queue.engine.writer.lastAppendedLSN
        await expectError(.jobNotFound) { try await fixture.queue.completeParked(key: "t-u") }
        await expectError(.jobNotFound) { try await fixture.queue.failParked(key: "t-u", error: "early") }
        #expect(fixture.queue.engine.writer.lastAppendedLSN == before)
        #expect(try fixture.job(id).state == .enqueued && fixture.job(id).lastError == nil)
        try await fixture.tearDown()
    }

    @Test func aDetachedContextRunsTheStartAfterItsPark() async throws {
        let calls = Locked<[String]>([])
        let context = JobContext(
            job: Job(kind: "upload", state: .running, attempts: 1),
            park: { key, _ in calls.withLock { $0.append("park " + key) } })
        await #expect(throws: JobParked(key: "k", deadline: .distantFuture)) {
            try await context.park(key: "k", deadline: .distantFuture) { calls.withLock { $0.append("start") } }
        }
        #expect(calls.withLock { $0 } == ["park k", "start"])
    }

    @Test func aDetachedContextCallsTheTestsParkAndCheckpoint() async throws {
        let calls = Locked<[String]>([])
        let context = JobContext(
            job: Job(kind: "upload", state: .running, attempts: 1, checkpoint: Data("c".utf8)),
            park: { key, _ in calls.withLock { $0.append("park " + key) } },
            checkpoint: { data in calls.withLock { $0.append("checkpoint \(data.count)") } })
        #expect(context.lastCheckpoint == Data("c".utf8))
        try await context.checkpoint(Data("xy".utf8))
        await #expect(throws: JobParked(key: "k", deadline: .distantFuture)) {
            try await context.park(key: "k", deadline: .distantFuture)
        }
        #expect(calls.withLock { $0 } == ["checkpoint 2", "park k"])
    }
}
