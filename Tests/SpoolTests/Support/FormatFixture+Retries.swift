import Foundation
import Testing

@testable import Spool

/// A typed kind whose jobs carry the kind's own retry policy (format-2-retries).
struct FixtureSync: JobKind {
    static let kind = "retries.sync"
    static var retryPolicy: RetryPolicy? { .exponential(base: 1.5, factor: 3, maximum: 20, maxAttempts: 6) }
    var note: String
}

extension FormatFixture {
    /// Jobs' own retry schedules and starts (format-2-retries, body version 13): `retry-table` enqueued with a
    /// table of its own (2 s, 4.5 s; 4 attempts) fails once and waits 2 s; `retry-sync`, a typed job of a kind
    /// with an exponential policy (1.5 s × 3^n, at most 20 s; 6 attempts), is released once (its attempt given
    /// back, its start kept) and fails once; a compaction writes both schedules and a `starts` after their
    /// restores; after the snapshot `retry-after` (its own table, 7 s) is snoozed with its attempt given back
    /// (starts 1, attempts 0); a producer's `retry-inbox` (its own table, 9 s; 2 attempts; tagged) is left in the
    /// inbox for the next open. `expected.json` is the state the next open holds.
    static func generateRetries(into directory: String) throws {
        let clock = ManualClock(start: start)
        let queuePath = directory + "/queue"
        let configuration = configuration(clock: clock)
        func step() { clock.advance(by: 1) }
        let queue = try JobQueue(directory: queuePath, configuration: configuration)
        // A large payload first: the log rolls over, as in every fixture.
        _ = try queue.enqueue(NewJob(kind: "archive", payload: Data(count: 1100), id: "local-0"))
        _ = try queue.enqueue(
            NewJob(
                kind: "retries.table", payload: Data("t".utf8), id: "retry-table",
                retryPolicy: .table([2, 4.5], maxAttempts: 4)))
        _ = try queue.enqueue(FixtureSync(note: "sync"), id: "retry-sync")
        step()
        let table = try #require(try queue.claim(kind: "retries.table"))
        try queue.fail(table, error: "HTTP 503")
        step()
        try queue.release(try #require(try queue.claim(kind: FixtureSync.kind)), reason: .systemTimeExpired)
        step()
        try queue.fail(try #require(try queue.claim(kind: FixtureSync.kind)), error: "offline")
        step()
        _ = try queue.compact()
        step()
        _ = try queue.enqueue(
            NewJob(kind: "retries.after", payload: Data("a".utf8), id: "retry-after", retryPolicy: .table([7])))
        try queue.snooze(
            try #require(try queue.claim(kind: "retries.after")), until: clock.now().addingTimeInterval(60))
        step()
        try closeChecked(queue)
        try? FileManager.default.removeItem(atPath: queuePath + "/" + QueueDirectoryLayout.lockFileName)

        let producer = try QueueProducer(
            directory: queuePath, configuration: configuration, fileIDs: { [UInt8](repeating: 0xcc, count: 16) })
        try producer.enqueue(
            NewJob(
                kind: "retries.inbox", payload: Data("i".utf8), id: "retry-inbox", tags: ["later"],
                retryPolicy: .table([9], maxAttempts: 2)))
        step()

        // The state the next open holds (it ingests the producer's record).
        try writeStateOfNextOpen(of: queuePath, into: directory, configuration: configuration, clock: clock)
    }
}
