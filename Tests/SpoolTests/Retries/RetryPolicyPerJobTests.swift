import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A kind of job that backs off exponentially, as its own.
private struct SyncNotes: JobKind {
    static let kind = "sync-notes"
    static var retryPolicy: RetryPolicy? { .exponential(base: 2, factor: 10, maximum: 1000, maxAttempts: 7) }
    var folder: String
}

/// Retry policies per kind and per job (FORMAT.md, *Retry policies and starts*): stored with the job, so that
/// a restart and a compaction keep them; the queue's policy stays the default.
@Suite(.blocking) struct RetryPolicyPerJobTests {
    /// A queue whose own policy (table [30], 3 attempts) differs from every job's below.
    static func configuration(_ clock: ManualClock) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.retryPolicy = .table([30], maxAttempts: 3)
        return configuration
    }

    /// Claims job `id` and fails it; returns the delay to its next attempt, in seconds (`nil`: failed for good).
    static func failOnce(_ id: JobID, _ queue: JobQueue, _ clock: ManualClock) throws -> TimeInterval? {
        let job = try #require(try queue.job(id))
        if let due = job.dueAt, due > clock.now() { clock.advance(to: due) }
        let lease = try #require(try queue.claim(kind: job.kind))
        #expect(lease.job.id == id)
        let failed = try queue.fail(lease, error: "offline")
        return failed.nextRetryAt.map { $0.timeIntervalSince(clock.now()) }
    }

    @Test func kindsAndJobsBackOffByTheirOwnPolicies() throws {
        let temporary = TemporaryDirectory("retries")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock))
        let upload = try queue.enqueue(NewJob(kind: "upload", retryPolicy: .table([5, 60], maxAttempts: 4)))
        let notes = try queue.enqueue(SyncNotes(folder: "inbox"))
        let plain = try queue.enqueue(NewJob(kind: "export"))
        let pinned = try queue.enqueue(NewJob(kind: "pinned", maxAttempts: 2, retryPolicy: .table([1])))
        #expect(try queue.job(upload)?.maxAttempts == 4 && queue.job(notes)?.maxAttempts == 7)
        #expect(try queue.job(plain)?.maxAttempts == 3 && queue.job(plain)?.retryPolicy == nil)
        #expect(try queue.job(pinned)?.maxAttempts == 2, "a job's own maxAttempts wins over its policy's")
        #expect(try queue.job(upload)?.retryPolicy == .table([5, 60], maxAttempts: 4))
        #expect(try queue.job(notes)?.retryPolicy == SyncNotes.retryPolicy)

        #expect(try Self.failOnce(upload, queue, clock) == 5)
        #expect(try Self.failOnce(upload, queue, clock) == 60)
        #expect(try Self.failOnce(notes, queue, clock) == 2)
        #expect(try Self.failOnce(notes, queue, clock) == 20)
        #expect(try Self.failOnce(plain, queue, clock) == 30)
        #expect(try Self.failOnce(pinned, queue, clock) == 1)
        #expect(try Self.failOnce(pinned, queue, clock) == nil)
        #expect(try queue.job(pinned)?.state == .failed)
        try closeChecked(queue)
    }

    /// The policy is the job's, on disk: a restart, a compaction and the restart after it keep it.
    @Test func aRestartAndACompactionKeepAJobsPolicy() throws {
        let temporary = TemporaryDirectory("retries")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock))
        let id = try queue.enqueue(NewJob(kind: "upload", retryPolicy: .table([5, 60, 600], maxAttempts: 5)))
        #expect(try Self.failOnce(id, queue, clock) == 5)
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock))
        #expect(try Self.failOnce(id, queue, clock) == 60)
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock))
        #expect(try queue.job(id)?.retryPolicy == .table([5, 60, 600], maxAttempts: 5))
        #expect(try Self.failOnce(id, queue, clock) == 600)
        try closeChecked(queue)
    }

    /// A producer's job carries its policy into the owner's log, and its budget is the policy's.
    @Test func aProducersJobCarriesItsPolicy() throws {
        let temporary = TemporaryDirectory("retries")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock)).close()
        let producer = try QueueProducer(directory: temporary.queue, configuration: testConfiguration(clock: clock))
        let id = try producer.enqueue(
            NewJob(kind: "upload", tags: ["photos"], retryPolicy: .exponential(base: 4, maximum: 8, maxAttempts: 9)))
        let typed = try producer.enqueue(SyncNotes(folder: "shared"))
        clock.advance(by: 1)
        let queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock))
        let job = try #require(try queue.job(id))
        #expect(job.maxAttempts == 9 && job.tags == ["photos"])
        #expect(job.retryPolicy == .exponential(base: 4, maximum: 8, maxAttempts: 9))
        #expect(try queue.job(typed)?.retryPolicy == SyncNotes.retryPolicy)
        #expect(try Self.failOnce(id, queue, clock) == 4)
        #expect(try Self.failOnce(id, queue, clock) == 8)
        try closeChecked(queue)
    }

    /// Delays are kept to the millisecond: the job the live queue holds is the one a replay reads back.
    @Test func delaysAreKeptToTheMillisecond() throws {
        let temporary = TemporaryDirectory("retries")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock))
        let id = try queue.enqueue(NewJob(kind: "upload", retryPolicy: .table([0.0004, 1.2345678])))
        let live = try #require(try queue.job(id))
        #expect(live.retryPolicy == .table([0, 1.235]))
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(clock))
        #expect(try queue.job(id) == live)
        try closeChecked(queue)
    }

    @Test func aPolicyOutOfRangeIsRefusedAndNothingIsWritten() throws {
        let temporary = TemporaryDirectory("retries")
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(ManualClock()))
        let before = queue.engine.writer.lastAppendedLSN
        expectError(.invalidArgument) {
            _ = try queue.enqueue(NewJob(kind: "a", retryPolicy: .table(Array(repeating: 1, count: 65))))
        }
        expectError(.invalidArgument) { _ = try queue.enqueue(NewJob(kind: "a", retryPolicy: .table([-1]))) }
        expectError(.invalidArgument) {
            _ = try queue.enqueue(NewJob(kind: "a", retryPolicy: .exponential(base: 1, factor: 0.5)))
        }
        expectError(.invalidArgument) {
            _ = try queue.enqueue(NewJob(kind: "a", retryPolicy: .table([1], maxAttempts: 0)))
        }
        #expect(queue.engine.writer.lastAppendedLSN == before)
        try closeChecked(queue)
    }
}
