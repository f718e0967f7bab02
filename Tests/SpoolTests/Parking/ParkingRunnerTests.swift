import Foundation
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
